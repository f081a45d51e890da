// writeWholeFile over POSIX open/write/close, retrying short writes and EINTR.
#include "runtime/core/FileWrite.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace collplan {
namespace {

[[noreturn]] void fail(const std::string &path, int error) {
  throw FileWriteError(path, std::string("cannot write: ") + std::strerror(error));
}

}  // namespace

void writeWholeFile(const std::string &path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, errno);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail(path, error);
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) fail(path, errno);
}

}  // namespace collplan
