// Files over POSIX open/read/write/close, retrying short transfers and EINTR.
#include "runtime/core/Files.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace collplan {
namespace {

[[noreturn]] void fail(const std::string &path, const char *doing, int error) {
  throw FileError(path, std::string(doing) + ": " + std::strerror(error));
}

/// Closes `fd` when the scope ends (errors of a read-only close do not matter).
struct ClosedAtExit {
  int fd;
  ~ClosedAtExit() { ::close(fd); }
};

std::string sizeText(uint64_t bytes) {
  if (bytes % (uint64_t(1) << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (uint64_t(1) << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::string readWholeFile(const std::string &path, uint64_t maxBytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open", errno);
  const ClosedAtExit closer{fd};
  auto tooLarge = [&] {
    return FileError(path, "is larger than " + sizeText(maxBytes) +
                               ", the limit for a file collplan reads");
  };
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && uint64_t(info.st_size) > maxBytes)
    throw tooLarge();  // devices and pipes are cut off while reading
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot read", errno);
    if (n == 0) return bytes;
    if (bytes.size() + size_t(n) > maxBytes) throw tooLarge();
    bytes.append(buffer, size_t(n));
  }
}

void writeWholeFile(const std::string &path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "cannot write", errno);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail(path, "cannot write", error);
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) fail(path, "cannot write", errno);
}

}  // namespace collplan
