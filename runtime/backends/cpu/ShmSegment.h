// ShmSegment: an owned mapping of a named POSIX shared-memory object (shm_open + mmap).
#pragma once

#include <cstddef>
#include <string>

namespace collplan {

class ShmSegment {
public:
  ShmSegment() = default;
  ShmSegment(ShmSegment &&other) noexcept { *this = std::move(other); }
  ShmSegment &operator=(ShmSegment &&other) noexcept;
  ShmSegment(const ShmSegment &) = delete;
  ShmSegment &operator=(const ShmSegment &) = delete;
  ~ShmSegment() { unmap(); }

  /// Creates `name` (removing a stale object of that name first), sizes it to `bytes` and maps
  /// it read-write. Throws RuntimeError(System) naming /dev/shm<name> and the OS reason.
  static ShmSegment create(const std::string &name, size_t bytes);
  /// Maps an existing object. Returns an empty segment when it does not exist yet or is still
  /// smaller than `minBytes` (its creator has not sized it); throws on any other failure.
  static ShmSegment open(const std::string &name, size_t minBytes, bool writable);
  /// Removes the name (mappings stay valid); a missing name is not an error.
  static void unlink(const std::string &name);

  explicit operator bool() const { return data_ != nullptr; }
  std::byte *data() const { return data_; }
  size_t size() const { return size_; }
  const std::string &name() const { return name_; }
  void unmap();

private:
  std::string name_;
  std::byte *data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace collplan
