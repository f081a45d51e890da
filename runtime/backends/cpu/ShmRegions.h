// ShmRegions: shared-memory regions a cpu-shm rank hands out for the caller's buffers, and the
// peers' regions it has mapped to read them in place.
#pragma once

#include "runtime/backends/cpu/ShmSegment.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// Buffers from collplan_mem_alloc on cpu-shm live in POSIX shared memory named
/// <prefix><rank>-m<id>, where the id is 62 random bits in hex (newSegmentId: no one can tell
/// the next name and create it first), so a peer maps the region and reads a published value in
/// place, with no copy at all (what cpu-threads does). Peers map regions lazily and keep the
/// most recently used few per peer; a region's id is drawn afresh for every region, so a stale
/// mapping does not alias a newer one.
class ShmRegions {
public:
  /// `prefix`: the job's segment prefix up to the rank number, e.g.
  /// "/collplan-job-0123456789abcdef-r" (ShmJobNames).
  ShmRegions(std::string prefix, int rank, int ranks);
  ~ShmRegions();
  ShmRegions(const ShmRegions &) = delete;
  ShmRegions &operator=(const ShmRegions &) = delete;

  /// A new region of at least `bytes` (page-aligned, zero-filled). Throws RuntimeError(System).
  void *allocate(size_t bytes);
  /// Frees a region allocate() returned; false when `p` is not the start of one.
  bool release(void *p);
  /// Removes the names of this rank's regions (the job is over for it); mappings stay valid.
  void unlinkAll() const;

  struct Location {
    uint64_t id;
    uint64_t offset;
  };
  /// Where [p, p + bytes) lies in this rank's regions, if it lies wholly inside one.
  std::optional<Location> find(const void *p, size_t bytes) const;
  /// Address here of [offset, offset + bytes) of region `id` of `peer`, mapping it if needed.
  /// Throws RuntimeError(System) when the region does not exist or is too small.
  const std::byte *peerData(int peer, uint64_t id, uint64_t offset, uint64_t bytes);

private:
  std::string nameOf(int rank, uint64_t id) const;

  struct Mapped {
    uint64_t id = 0;
    uint64_t lastUse = 0;
    ShmSegment segment;
  };
  /// Peer regions kept mapped per peer (least recently used ones are unmapped beyond this).
  static constexpr size_t kMappedPerPeer = 16;

  std::string prefix_;
  int rank_;
  uint64_t useClock_ = 0;
  std::map<uintptr_t, std::pair<uint64_t, ShmSegment>> owned_;  ///< by start address
  std::vector<std::vector<Mapped>> peers_;
};

}  // namespace collplan
