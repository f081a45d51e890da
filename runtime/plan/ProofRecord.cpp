// ProofRecord: the record directory, its ownership checks, the per-content lock and the records.
#include "runtime/plan/ProofRecord.h"

#include "runtime/plan/PlanError.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace collplan {
namespace {

/// Closes a descriptor when the scope ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// "" when `st` belongs to this user and no other user may write it, else why not.
std::string foreignOrShared(const struct stat &st) {
  if (st.st_uid != ::geteuid())
    return "it belongs to uid " + std::to_string(st.st_uid) + ", not to this user";
  if (st.st_mode & 022) return "users other than its owner may write it";
  return "";
}

/// Creates `dir` and its missing parents (mode 0700); "" or why it cannot be used.
std::string makeDirectory(const std::string &dir) {
  for (size_t at = dir.find('/', 1); at != std::string::npos; at = dir.find('/', at + 1)) {
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot create " + part + ": " + std::strerror(errno);
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot create it: " + std::string(std::strerror(errno));
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) return std::string("cannot stat it: ") + std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  return foreignOrShared(st);
}

/// The directory records go to when COLLPLAN_PROOF_DIR is not set; "" when there is no home.
std::string defaultDirectory() {
  const char *cache = std::getenv("XDG_CACHE_HOME");
  if (cache && cache[0] == '/') return std::string(cache) + "/collplan/proofs";
  const char *home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/collplan/proofs";
  return "";
}

/// What a record holds: its content names what was proven, so a renamed file proves nothing.
std::string recordText(const std::string &digest) {
  return "collplan proof record\nsha256 " + digest + "\nrules " +
         std::to_string(kProofRulesVersion) + "\n";
}

/// Takes an exclusive flock on `fd`, polling until `timeout`; false when it stays taken.
bool lockWithin(int fd, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(100);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(10)) pause *= 2;
  }
  return true;
}

}  // namespace

ProofRecords ProofRecords::fromEnvironment() {
  const char *named = std::getenv(kProofDirVariable);
  if (!named) {
    ProofRecords records(defaultDirectory());
    if (records.dir_.empty()) records.unusable_ = "neither XDG_CACHE_HOME nor HOME names one";
    return records;
  }
  if (named[0] != '/')
    throw PlanError(kProofDirVariable, "",
                    "must be an absolute directory path, got \"" + std::string(named) + "\"");
  ProofRecords records(named);
  if (!records.unusable_.empty())
    throw PlanError(kProofDirVariable, "", std::string(named) + ": " + records.unusable_);
  return records;
}

ProofRecords::ProofRecords(std::string dir) : dir_(std::move(dir)) {
  unusable_ = dir_.empty() ? "no directory was named" : makeDirectory(dir_);
}

std::string ProofRecords::recordPath(const std::string &digest) const {
  return dir_ + "/" + digest + ".r" + std::to_string(kProofRulesVersion);
}

bool ProofRecords::proven(const std::string &digest) const {
  if (!unusable_.empty()) return false;
  Fd fd{::open(recordPath(digest).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
  struct stat st;
  if (fd.fd < 0 || ::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      !foreignOrShared(st).empty())
    return false;
  const std::string expected = recordText(digest);
  std::string text(expected.size() + 1, '\0');
  const ssize_t n = ::read(fd.fd, text.data(), text.size());
  return n == ssize_t(expected.size()) && text.compare(0, expected.size(), expected) == 0;
}

void ProofRecords::write(const std::string &digest) const {
  // Written whole under a private name, then renamed: a reader sees all of it or nothing.
  const std::string temporary = recordPath(digest) + ".tmp" + std::to_string(::getpid());
  Fd fd{::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)};
  if (fd.fd < 0) return;  // a record is an optimisation: the next load proves again
  const std::string text = recordText(digest);
  const bool written = ::write(fd.fd, text.data(), text.size()) == ssize_t(text.size());
  if (!written || ::rename(temporary.c_str(), recordPath(digest).c_str()) != 0)
    ::unlink(temporary.c_str());
}

void ProofRecords::proveOnce(const std::string &digest, const std::function<void()> &prove,
                             std::chrono::milliseconds timeout) const {
  if (!unusable_.empty()) return prove();
  if (proven(digest)) return;
  const std::string lockPath = recordPath(digest) + ".lock";
  Fd lock{::open(lockPath.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)};
  if (lock.fd < 0) return prove();  // cannot coordinate: prove alone
  if (!lockWithin(lock.fd, timeout))
    throw PlanError(lockPath, "",
                    "another process held this lock for more than " +
                        std::to_string(timeout.count() / 1000) +
                        " s while proving the same file (COLLPLAN_TIMEOUT_S); is it stopped?");
  // Every process that opened the lock removes it when done, whoever proved: a process that
  // created it only to find the record written would otherwise leave it in the directory.
  if (proven(digest)) {
    ::unlink(lockPath.c_str());
    return;
  }
  try {
    prove();
  } catch (...) {
    ::unlink(lockPath.c_str());
    throw;
  }
  write(digest);
  ::unlink(lockPath.c_str());
}

}  // namespace collplan
