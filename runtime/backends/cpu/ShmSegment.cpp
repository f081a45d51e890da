// ShmSegment: shm_open/ftruncate/mmap with errors that name the object and the OS reason.
#include "runtime/backends/cpu/ShmSegment.h"

#include "runtime/exec/RuntimeError.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace collplan {
namespace {

[[noreturn]] void systemError(const std::string &what, const std::string &name, int err) {
  throw RuntimeError(ErrorCode::System, what + " shared-memory segment /dev/shm" + name + ": " +
                                            std::strerror(err));
}

/// Closes a descriptor when the scope ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

ShmSegment &ShmSegment::operator=(ShmSegment &&other) noexcept {
  if (this != &other) {
    unmap();
    name_ = std::move(other.name_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void ShmSegment::unmap() {
  if (data_) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

ShmSegment ShmSegment::create(const std::string &name, size_t bytes) {
  ::shm_unlink(name.c_str());
  Fd fd{::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)};
  if (fd.fd < 0) systemError("cannot create", name, errno);
  if (::ftruncate(fd.fd, off_t(bytes)) != 0) {
    const int err = errno;
    ::shm_unlink(name.c_str());
    systemError("cannot size (" + std::to_string(bytes) + " bytes)", name, err);
  }
  void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::shm_unlink(name.c_str());
    systemError("cannot map", name, err);
  }
  ShmSegment s;
  s.name_ = name;
  s.data_ = static_cast<std::byte *>(p);
  s.size_ = bytes;
  return s;
}

ShmSegment ShmSegment::open(const std::string &name, size_t minBytes, bool writable) {
  Fd fd{::shm_open(name.c_str(), writable ? O_RDWR : O_RDONLY, 0)};
  if (fd.fd < 0) {
    if (errno == ENOENT) return {};
    systemError("cannot open", name, errno);
  }
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) systemError("cannot stat", name, errno);
  if (size_t(st.st_size) < minBytes || st.st_size == 0) return {};
  const size_t bytes = size_t(st.st_size);
  void *p = ::mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
                   fd.fd, 0);
  if (p == MAP_FAILED) systemError("cannot map", name, errno);
  ShmSegment s;
  s.name_ = name;
  s.data_ = static_cast<std::byte *>(p);
  s.size_ = bytes;
  return s;
}

void ShmSegment::unlink(const std::string &name) { ::shm_unlink(name.c_str()); }

}  // namespace collplan
