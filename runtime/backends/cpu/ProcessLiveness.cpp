// ProcessLiveness: /proc/<pid>/stat state and start time, the PID namespace, kill(pid, 0).
#include "runtime/backends/cpu/ProcessLiveness.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace collplan {
namespace {

struct ProcStat {
  char state = '?';
  uint64_t startTime = 0;
};

/// State and start time from /proc/<pid>/stat; false when the file cannot be read (errno set).
bool readProcStat(int64_t pid, ProcStat &out) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  const int err = errno;
  ::close(fd);
  if (n <= 0) {
    errno = n < 0 ? err : EIO;
    return false;
  }
  buf[n] = '\0';
  // "pid (comm) state ppid ... starttime(22) ...": comm may hold spaces and ')'.
  const char *p = std::strrchr(buf, ')');
  if (!p || p[1] != ' ') {
    errno = EIO;
    return false;
  }
  p += 2;
  out.state = *p;
  for (int field = 3; field < 22 && p; ++field) {
    p = std::strchr(p, ' ');
    if (p) ++p;
  }
  out.startTime = p ? std::strtoull(p, nullptr, 10) : 0;
  return true;
}

/// What this process can learn about others; forked children inherit both facts.
struct Vantage {
  uint64_t pidNamespace = 0;  ///< inode of /proc/self/ns/pid; 0: unknown
  bool procAnswers = false;   ///< /proc/<pid>/stat is readable (for our own pid)
};

const Vantage &vantage() {
  static const Vantage v = [] {
    Vantage v;
    struct stat st;
    if (::stat("/proc/self/ns/pid", &st) == 0) v.pidNamespace = uint64_t(st.st_ino);
    ProcStat self;
    v.procAnswers = readProcStat(::getpid(), self);
    return v;
  }();
  return v;
}

}  // namespace

ProcessId thisProcess() {
  ProcessId id;
  id.pid = ::getpid();
  ProcStat stat;
  if (readProcStat(id.pid, stat)) id.startTime = stat.startTime;
  id.pidNamespace = vantage().pidNamespace;
  return id;
}

Liveness livenessOf(const ProcessId &process) {
  const Vantage &self = vantage();
  if (process.pid <= 0) return Liveness::Unknown;
  if (self.pidNamespace != 0 && process.pidNamespace != 0 &&
      process.pidNamespace != self.pidNamespace)
    return Liveness::Unknown;
  if (self.procAnswers) {
    ProcStat stat;
    if (readProcStat(process.pid, stat)) {
      if (stat.state == 'Z' || stat.state == 'X') return Liveness::Dead;
      if (process.startTime != 0 && stat.startTime != process.startTime) return Liveness::Dead;
      return Liveness::Alive;
    }
    if (errno == ENOENT || errno == ESRCH) return Liveness::Dead;
  }
  // No /proc: a zombie or a reused pid looks alive here; only a missing process is dead.
  if (::kill(pid_t(process.pid), 0) == 0 || errno != ESRCH) return Liveness::Alive;
  return Liveness::Dead;
}

}  // namespace collplan
