// cpu-shm: one rank per process; slots and staging in POSIX shared memory every rank maps.
#pragma once

#include "runtime/backends/cpu/CrossMemory.h"
#include "runtime/backends/cpu/FlagTransport.h"
#include "runtime/backends/cpu/ShmControl.h"
#include "runtime/backends/cpu/ShmRegions.h"
#include "runtime/backends/cpu/ShmSegment.h"

#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// One rank of a cpu-shm job (the intra-node IPC-buffer design).
///  - Control segment /dev/shm/collplan-<job>: a header (with the job's nonce) and every rank's
///    record (pid, calls finished) and message FIFOs. Rank 0 first reaps what dead jobs of this
///    user left (reapStaleJobs), then creates it, never over a live job's: a control segment
///    whose processes are all dead is removed first, one with a live process is refused
///    ("already in use by another job"). The others open it (waiting up to the timeout for rank
///    0), check its owner, mode, size and rank count, check its nonce when they were given one
///    (COLLPLAN_SHM_NONCE, from the launcher), refuse a job that has one when they have none,
///    and claim their record (a record a live process holds is refused). When a job without a
///    nonce meets another of its name (a second rank 0, a second process for a rank), it is
///    marked contested and its ranks stop at their next call or wait (checkContested). The name
///    stays while the job runs, so a second job of the name finds it; the last rank to leave
///    removes it.
///  - Staging segment /dev/shm/collplan-<job>-<nonce>-r<rank>-g<id> per rank, where the id (its
///    generation) is 62 random bits in hex, drawn for each segment, so that no one who lists
///    /dev/shm can create a job's next segment first (a name that exists is drawn again): where
///    the rank writes the values it stages (one copy, fused with the op's reduction); receivers
///    reduce straight from the sender's staging. When a call needs more staging the rank
///    creates a larger segment under a new id and removes the old one (safe: every peer
///    released its data before the previous call returned); peers map a generation lazily,
///    read-only, the first time a slot names it. Each rank removes its staging segment when it
///    leaves the job.
///  - Zero copy: buffers from collplan_mem_alloc live in shared regions (ShmRegions); a value
///    that stays put in one is published in place and peers read it through their mapping,
///    exactly as cpu-threads does.
///  - Single copy: other user buffers are private to each process, but a value that stays put and is
///    at least SingleCopySettings::minBytes is published in place (its address in the sender);
///    the receiver copies it out with process_vm_readv, straight into its destination or
///    through a cache-sized bounce buffer it reduces from (Executor). Whether every rank may
///    read its peers this way is probed once, in the first call: each rank reads a probe word
///    of the next rank; any failure (Yama, seccomp, no CAP_SYS_PTRACE across users) turns
///    single copy off for the whole job and everything is staged, as before.
///  - Dead peers: while it waits, a rank looks every 100 ms (WaitPolicy::check) at the peers
///    that have not finished its current call; one that died (ProcessLiveness) or left the job
///    ends the job: the rank marks it failed, removes every segment of the job and throws
///    RuntimeError(System) naming the peer, whatever the timeout. A process that exits without
///    destroying its transport leaves the job at exit (atexit).
class ShmTransport final : public FlagTransport {
public:
  /// `job` names the job's segments: letters, digits, '.', '_' and '-' only, at most 200.
  /// `nonce`: the job's nonce when the caller made one (0: COLLPLAN_SHM_NONCE when it is given
  /// for this job; rank 0 otherwise draws one and the others take what rank 0 wrote).
  ShmTransport(const std::string &job, int rank, int ranks, WaitPolicy policy,
               uint64_t nonce = 0);
  ~ShmTransport() override;
  bool peersCanRead(BufferKind) const override { return true; }
  size_t inPlaceMinBytes(const void *base, size_t bytes) const override;
  void *allocateShared(size_t bytes) override { return regions_->allocate(bytes); }
  bool freeShared(void *p) override { return regions_->release(p); }
  void beginCall(const CallSignature &signature) override;
  void endCall() override;
  /// Whether this job moves large values with single-copy reads (known after the first call).
  bool singleCopyActive() const { return probed_ && canFetch_ && singleCopy_.enabled; }

  /// Throws RuntimeError(InvalidArgument) when `job` cannot name a segment.
  static void checkJobName(const std::string &job);

  /// Throws RuntimeError(System) when a peer that has not finished this rank's current call
  /// died or left the job (after marking the job failed and removing its segments). Called
  /// while waiting (WaitPolicy::check).
  void checkPeers();
  /// Throws RuntimeError(InvalidArgument) when the job was found contested
  /// (ShmHeader::contested): two jobs of its name, without nonces, may share ranks.
  void checkContested() const;
  /// Leaves the job: removes this rank's segments, marks it detached and, when no other rank
  /// is left, removes the control segment and what dead ranks left. Idempotent.
  void leaveJob();

protected:
  FifoDirectory directoryOf(int sender) override;
  std::atomic<uint64_t> &callBoard(int rank) override { return recordOf(control_, rank).callBoard; }
  std::byte *reserveStaging(size_t bytes) override;
  void encode(const std::byte *data, size_t bytes, MessageSlot &slot) override;
  const std::byte *decode(int peer, const MessageSlot &slot) override;
  void copyOut(int peer, const MessageSlot &slot, size_t offset, size_t bytes,
               std::byte *dst) override;

private:
  std::string stagingName(int rank, uint64_t generation) const;
  /// Rank 0: creates the control segment (freeing the name of a dead job first).
  void createControl(const ControlLayout &layout, uint64_t nonce);
  /// Other ranks: opens the control segment once rank 0 made it, and checks it.
  void openControl(const ControlLayout &layout, uint64_t nonce);
  void attach(uint64_t nonce);
  /// Fills this rank's record (its process, its probe word) once its pid is in it.
  void publishRecord();
  /// Marks peer `peer` failed, removes the job's segments and throws, saying `what` it did.
  [[noreturn]] void failJob(int peer, const std::string &what);
  /// The first call's probe of cross-memory reads (a job-wide decision, see the class comment).
  void probeSingleCopy();
  /// Waits until `counter` reaches the rank count; throws RuntimeError(Timeout) naming `what`.
  void waitForAllRanks(const std::atomic<uint64_t> &counter, const char *what) const;

  struct PeerStaging {
    uint64_t generation = 0;
    ShmSegment segment;
  };
  std::string job_;
  ShmJobNames names_;  ///< with the nonce, once attached
  ShmSegment control_;
  std::byte *directories_ = nullptr;  ///< every rank's FifoDirectory, in the control segment
  uint32_t fifoCapacity_ = 0;
  size_t directoryBytes_ = 0;
  ShmSegment staging_;
  uint64_t generation_ = 0;  ///< the id of `staging_` (0: none yet)
  std::vector<PeerStaging> peers_;
  std::optional<ShmRegions> regions_;  ///< named with the nonce: made once attached
  bool left_ = false;
  SingleCopySettings singleCopy_;
  bool probed_ = false;
  bool canFetch_ = false;  ///< every rank of the job can read its peers with process_vm_readv
  /// What peers read to probe cross-memory access to this process (address in the header).
  uint64_t probeWord_;
};

}  // namespace collplan
