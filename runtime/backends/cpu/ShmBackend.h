// cpu-shm: one rank per process; slots and staging in POSIX shared memory every rank maps.
#pragma once

#include "runtime/backends/cpu/FlagTransport.h"
#include "runtime/backends/cpu/ShmSegment.h"

#include <string>
#include <vector>

namespace collplan {

/// One rank of a cpu-shm job (the intra-node IPC-buffer design).
///  - Control segment /dev/shm/collplan-<job>: a header and every rank's send slots. Rank 0
///    creates it; the others open it (waiting up to the timeout for rank 0) and check its rank
///    count; the last rank to attach removes the name, so nothing is left behind once all ranks
///    are up (the mappings stay valid).
///  - Staging segment /dev/shm/collplan-<job>-r<rank>-g<generation> per rank: where the rank
///    writes every value it sends. User buffers are private to each process, so every send is
///    staged (one copy, fused with the op's reduction); receivers reduce straight from the
///    sender's staging. When a call needs more staging the rank creates a larger segment with
///    the next generation number and removes the old one (safe: every peer released its data
///    before the previous call returned); peers map a generation lazily, read-only, the first
///    time a slot names it. Each rank removes its staging segment when destroyed.
class ShmTransport final : public FlagTransport {
public:
  /// `job` names the job's segments: letters, digits, '.', '_' and '-' only, at most 200.
  ShmTransport(const std::string &job, int rank, int ranks, uint32_t slotCapacity,
               WaitPolicy policy);
  ~ShmTransport() override;
  bool peersCanRead(BufferKind) const override { return false; }

  /// Throws RuntimeError(InvalidArgument) when `job` cannot name a segment.
  static void checkJobName(const std::string &job);

protected:
  FlagSlot &slotOf(int sender, uint32_t slot) override;
  std::byte *reserveStaging(size_t bytes) override;
  void encode(const std::byte *data, size_t bytes, FlagSlot &slot) override;
  const std::byte *decode(int peer, const FlagSlot &slot) override;

private:
  std::string controlName() const;
  std::string stagingName(int rank, uint64_t generation) const;
  void attach();

  struct PeerStaging {
    uint64_t generation = 0;
    ShmSegment segment;
  };
  std::string job_;
  ShmSegment control_;
  FlagSlot *slots_ = nullptr;
  ShmSegment staging_;
  uint64_t generation_ = 0;
  std::vector<PeerStaging> peers_;
};

}  // namespace collplan
