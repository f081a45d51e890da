// ShmSegment: shm_open/ftruncate/mmap with owner, mode and size checks; errors that name the
// object and the reason.
#include "runtime/backends/cpu/ShmSegment.h"

#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/exec/RuntimeError.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace collplan {
namespace {

[[noreturn]] void systemError(const std::string &what, const std::string &name, int err) {
  throw RuntimeError(ErrorCode::System, what + " shared-memory segment /dev/shm" + name + ": " +
                                            std::strerror(err));
}

[[noreturn]] void refuse(const std::string &name, const std::string &why) {
  throw RuntimeError(ErrorCode::System, "refusing shared-memory segment /dev/shm" + name + ": " +
                                            why);
}

std::string octalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

/// Refuses an object this user did not create the way collplan creates them.
void checkOwnership(const std::string &name, const struct stat &st) {
  if (st.st_uid != ::geteuid())
    refuse(name, "it belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
                     std::to_string(::geteuid()) +
                     "): another user created it; pick another job name");
  if ((st.st_mode & 07777) != 0600)
    refuse(name, "its mode is " + octalMode(st.st_mode) +
                     ", not 0600: collplan did not create it so (other users could read or "
                     "change it); remove it if it is yours");
}

/// Names the owner of an object this user may not open, when /dev/shm can say.
std::string whyNotPermitted(const std::string &name) {
  struct stat st;
  if (::stat(("/dev/shm" + name).c_str(), &st) != 0) return "";
  return " (owned by uid " + std::to_string(st.st_uid) + ", mode " + octalMode(st.st_mode) +
         "; this user is uid " + std::to_string(::geteuid()) + ": pick another job name)";
}

/// Closes a descriptor when the scope ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Sizes the object to `bytes` with every page allocated now: a page tmpfs could not supply
/// later would be a SIGBUS in whichever process first touched it, not an error. 0 or errno
/// (ENOSPC when /dev/shm lacks the room, checked first so that a request far beyond it fails
/// before any page is taken).
int reserve(int fd, size_t bytes) {
  struct statvfs fs;
  if (::fstatvfs(fd, &fs) == 0 && fs.f_frsize > 0 &&
      bytes / fs.f_frsize > uint64_t(fs.f_bavail))
    return ENOSPC;
  if (::ftruncate(fd, off_t(bytes)) != 0) return errno;
  if (bytes == 0) return 0;
  int err;
  while ((err = ::posix_fallocate(fd, 0, off_t(bytes))) == EINTR) {
  }
  return err;
}

/// Whether `fd` is the object (device, inode).
bool sameObject(int fd, uint64_t device, uint64_t inode) {
  struct stat st;
  return fd >= 0 && ::fstat(fd, &st) == 0 && uint64_t(st.st_dev) == device &&
         uint64_t(st.st_ino) == inode;
}

}  // namespace

ShmSegment &ShmSegment::operator=(ShmSegment &&other) noexcept {
  if (this != &other) {
    unmap();
    name_ = std::move(other.name_);
    data_ = other.data_;
    size_ = other.size_;
    device_ = other.device_;
    inode_ = other.inode_;
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

ShmSegment ShmSegment::create(const std::string &name, size_t bytes, bool *exists) {
  if (exists) *exists = false;
  Fd fd{::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)};
  if (fd.fd < 0 && errno == EEXIST && exists) {
    *exists = true;
    return {};
  }
  if (fd.fd < 0 && errno == EEXIST)
    refuse(name, "it already exists" + whyNotPermitted(name));
  if (fd.fd < 0) systemError("cannot create", name, errno);
  struct stat st;
  if (::fchmod(fd.fd, 0600) != 0 || ::fstat(fd.fd, &st) != 0) {  // 0600 whatever the umask
    const int err = errno;
    ::shm_unlink(name.c_str());
    systemError("cannot set the mode of", name, err);
  }
  if (const int err = reserve(fd.fd, bytes)) {
    ::shm_unlink(name.c_str());
    systemError("cannot reserve " + std::to_string(bytes) + " bytes of memory for", name, err);
  }
  void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::shm_unlink(name.c_str());
    systemError("cannot map", name, err);
  }
  return mapped(name, p, bytes, st);
}

ShmSegment ShmSegment::mapped(const std::string &name, void *data, size_t bytes,
                              const struct stat &st) {
  ShmSegment s;
  s.name_ = name;
  s.data_ = static_cast<std::byte *>(data);
  s.size_ = bytes;
  s.device_ = uint64_t(st.st_dev);
  s.inode_ = uint64_t(st.st_ino);
  return s;
}

ShmSegment ShmSegment::createUnique(const std::function<std::string(uint64_t)> &nameOf,
                                    size_t bytes, uint64_t &id) {
  constexpr int kAttempts = 16;
  for (int attempt = 1;; ++attempt) {
    id = newSegmentId();
    bool exists = false;
    ShmSegment s = create(nameOf(id), bytes, attempt < kAttempts ? &exists : nullptr);
    if (!exists) return s;
  }
}

ShmSegment ShmSegment::open(const std::string &name, Expect expect, bool writable) {
  Fd fd{::shm_open(name.c_str(), writable ? O_RDWR : O_RDONLY, 0)};
  if (fd.fd < 0) {
    if (errno == ENOENT) return {};
    if (errno == EACCES) refuse(name, std::strerror(errno) + whyNotPermitted(name));
    systemError("cannot open", name, errno);
  }
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) systemError("cannot stat", name, errno);
  checkOwnership(name, st);
  if (st.st_size == 0) return {};  // its creator has not sized it yet
  const size_t bytes = size_t(st.st_size);
  if (expect.exactBytes != 0 && bytes != expect.exactBytes)
    refuse(name, "it holds " + std::to_string(bytes) + " bytes, " +
                     std::to_string(expect.exactBytes) + " expected");
  if (bytes < expect.minBytes)
    refuse(name, "it holds " + std::to_string(bytes) + " bytes, at least " +
                     std::to_string(expect.minBytes) + " expected");
  void *p = ::mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
                   fd.fd, 0);
  if (p == MAP_FAILED) systemError("cannot map", name, errno);
  return mapped(name, p, bytes, st);
}

void ShmSegment::unlink(const std::string &name) { ::shm_unlink(name.c_str()); }

bool ShmSegment::unlinkIfStillNamed() const {
  if (name_.empty() || inode_ == 0) return false;
  Fd fd{::shm_open(name_.c_str(), O_RDONLY, 0)};
  if (!sameObject(fd.fd, device_, inode_)) return false;
  while (::flock(fd.fd, LOCK_EX) != 0)
    if (errno != EINTR) return false;
  // Another remover may have removed the name (and someone re-created it) while this one waited.
  Fd again{::shm_open(name_.c_str(), O_RDONLY, 0)};
  if (!sameObject(again.fd, device_, inode_)) return false;
  return ::shm_unlink(name_.c_str()) == 0;
}

}  // namespace collplan
