// ShmSegment: an owned mapping of a named POSIX shared-memory object (shm_open + mmap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/stat.h>

namespace collplan {

/// Every object a job creates is 0600 and created with O_EXCL; every object it opens must be
/// owned by this user, have mode 0600 and the size the opener expects, or it is refused: the
/// names live in /dev/shm, where any local user may create one first.
class ShmSegment {
public:
  ShmSegment() = default;
  ShmSegment(ShmSegment &&other) noexcept { *this = std::move(other); }
  ShmSegment &operator=(ShmSegment &&other) noexcept;
  ShmSegment(const ShmSegment &) = delete;
  ShmSegment &operator=(const ShmSegment &) = delete;
  ~ShmSegment() { unmap(); }

  /// Creates `name` (mode 0600, never an existing object), sizes it to `bytes` and maps it
  /// read-write. When the name exists: returns an empty segment if `exists` is given (and sets
  /// it), else throws. Throws RuntimeError(System) naming /dev/shm<name> and the OS reason.
  static ShmSegment create(const std::string &name, size_t bytes, bool *exists = nullptr);

  /// Creates a segment named `nameOf(id)` for a fresh random id (newSegmentId), which it sets.
  /// A name that exists already (someone created it first) is not an error: it draws another
  /// id, up to 16 times. Throws as create() does.
  static ShmSegment createUnique(const std::function<std::string(uint64_t)> &nameOf,
                                 size_t bytes, uint64_t &id);

  /// What open() accepts: a size of exactly `exactBytes` when it is not 0, else at least
  /// `minBytes`.
  struct Expect {
    size_t minBytes = 0;
    size_t exactBytes = 0;
  };
  /// Maps an existing object. Returns an empty segment when it does not exist yet or is still
  /// empty (its creator has not sized it). Throws RuntimeError(System) naming the object when
  /// another user owns it, its mode is not 0600 or its size is not what `expect` says, and on
  /// any other failure.
  static ShmSegment open(const std::string &name, Expect expect, bool writable);
  /// Removes the name (mappings stay valid); a missing name is not an error.
  static void unlink(const std::string &name);
  /// Removes the name only while it still names the object this segment maps; false when the
  /// name is gone or names another object. Removers of one name take turns (flock on the
  /// object), so a remover never removes an object created after it looked.
  bool unlinkIfStillNamed() const;

  explicit operator bool() const { return data_ != nullptr; }
  std::byte *data() const { return data_; }
  size_t size() const { return size_; }
  const std::string &name() const { return name_; }
  void unmap();

private:
  /// The segment `name` mapped at `data` (`bytes` long), as the object `st` describes.
  static ShmSegment mapped(const std::string &name, void *data, size_t bytes,
                           const struct stat &st);

  std::string name_;
  std::byte *data_ = nullptr;
  size_t size_ = 0;
  uint64_t device_ = 0, inode_ = 0;  ///< which object the name named when it was mapped
};

}  // namespace collplan
