// cpu-threads: heap FIFOs shared by the ranks' threads, pointers posted as-is.
#include "runtime/backends/cpu/ThreadsBackend.h"

#include "runtime/exec/RuntimeError.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/mman.h>

namespace collplan {

ThreadsShared::ThreadsShared(int ranks)
    : ranks_(ranks), capacity_(fifoDirectoryCapacity(ranks)),
      directoryBytes_((FifoDirectory::bytesFor(capacity_) + 63) & ~size_t(63)),
      mappedBytes_(size_t(ranks) * directoryBytes_),
      callBoard_(std::make_unique<std::atomic<uint64_t>[]>(size_t(ranks))) {
  // An anonymous mapping is zero-filled and page-aligned, and only the pages of FIFOs that
  // ranks use are ever allocated.
  void *p = ::mmap(nullptr, mappedBytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw RuntimeError(ErrorCode::System, "cannot map " + std::to_string(mappedBytes_) +
                                              " bytes for the message FIFOs of " +
                                              std::to_string(ranks) + " ranks: " +
                                              std::strerror(errno));
  memory_ = static_cast<std::byte *>(p);
}

ThreadsShared::~ThreadsShared() { ::munmap(memory_, mappedBytes_); }

ThreadsTransport::ThreadsTransport(std::shared_ptr<ThreadsShared> shared, int rank,
                                   WaitPolicy policy)
    : FlagTransport(rank, shared->ranks(), policy), shared_(std::move(shared)) {}

std::byte *ThreadsTransport::reserveStaging(size_t bytes) {
  if (bytes <= stagingCapacity_) return staging_.get();
  const size_t rounded = (bytes + 4095) & ~size_t(4095);
  void *p = std::aligned_alloc(4096, rounded);
  if (!p)
    throw RuntimeError(ErrorCode::System, "rank " + std::to_string(rank_) +
                                              ": out of memory allocating " +
                                              std::to_string(rounded) + " bytes of staging");
  staging_.reset(static_cast<std::byte *>(p));
  stagingCapacity_ = rounded;
  return staging_.get();
}

void ThreadsTransport::encode(const std::byte *data, size_t, MessageSlot &slot) {
  slot.where = uint64_t(reinterpret_cast<uintptr_t>(data));
}

const std::byte *ThreadsTransport::decode(int, const MessageSlot &slot) {
  return reinterpret_cast<const std::byte *>(uintptr_t(slot.where));
}

}  // namespace collplan
