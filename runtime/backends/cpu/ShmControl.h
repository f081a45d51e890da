// ShmControl: a cpu-shm job's control segment (header, rank records) and the names of its
// segments; what keeps two jobs of one name apart; removal of a finished or dead job's segments.
#pragma once

#include "runtime/backends/cpu/ProcessLiveness.h"
#include "runtime/backends/cpu/ShmSegment.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collplan {

inline constexpr uint64_t kControlMagic = 0x636f6c6c706c616eull;  // "collplan"
/// Changes whenever the control segment's layout does: a job of another version is refused.
inline constexpr uint32_t kControlLayoutVersion = 5;
inline constexpr size_t kControlHeaderBytes = 4096;

/// The start of the control segment. Rank 0 fills it, then publishes `magic` (release).
struct ShmHeader {
  std::atomic<uint64_t> magic;
  uint32_t version;
  int32_t ranks;
  uint32_t fifoCapacity;
  /// The job's nonce: part of every other segment's name, and what ranks given one must find.
  uint64_t nonce;
  std::atomic<uint64_t> attached;          ///< ranks that claimed their record
  std::atomic<uint64_t> probed;            ///< ranks that finished the single-copy probe
  std::atomic<uint32_t> singleCopyDenied;  ///< some rank could not read its peer's memory
  std::atomic<int32_t> failedRank;         ///< 1 + the rank found dead or gone (0: none)
  /// 1 when rank 0 was given the nonce (COLLPLAN_SHM_NONCE, a launcher): a rank without one
  /// belongs to another job of the name and is refused.
  uint32_t nonceGiven;
  /// Set when a job without a nonce meets another job of its name (a second rank 0, or two
  /// processes claiming one rank): their ranks may have mixed, so every rank stops.
  std::atomic<uint32_t> contested;
};
static_assert(sizeof(ShmHeader) <= kControlHeaderBytes, "header fits its page");

/// What a rank publishes about itself, after the header (one cache line per rank).
struct alignas(64) RankRecord {
  std::atomic<int64_t> pid;       ///< 0: not attached; set (compare-and-swap) by the rank itself
  std::atomic<uint32_t> ready;    ///< 1 once the fields below are written
  std::atomic<uint32_t> detached; ///< 1 once the rank left the job (destroyed or exited)
  uint64_t startTime;             ///< ProcessId of the rank, with pid
  uint64_t pidNamespace;
  uint64_t probeAddress;             ///< the rank's probe word in its own process
  std::atomic<uint64_t> callsDone;   ///< calls the rank finished
  std::atomic<uint64_t> callBoard;   ///< the call the rank is in (FlagTransport::callBoard)
};
static_assert(sizeof(RankRecord) == 64, "one cache line per rank");

/// Where things are in the control segment of a job of `ranks` ranks.
struct ControlLayout {
  uint32_t fifoCapacity = 0;
  size_t directoryBytes = 0;  ///< one rank's FIFO directory, 64-byte aligned
  size_t directoriesAt = 0;
  size_t bytes = 0;           ///< the whole segment
  static ControlLayout forRanks(int ranks);
};

/// The names of one job's objects. The control segment "/collplan-<job>" is the one name every
/// rank knows; it exists while the job runs, so a second job of the name finds it. The others
/// carry the nonce, so no other job (or user) can guess or share them:
/// "/collplan-<job>-<nonce>-r<rank>-g<generation>" (staging), "...-r<rank>-m<id>" (regions).
struct ShmJobNames {
  std::string job;
  uint64_t nonce = 0;
  std::string control() const;
  std::string prefix() const;
  std::string ofRank(int rank) const;
};

inline ShmHeader &headerOf(const ShmSegment &control) {
  return *reinterpret_cast<ShmHeader *>(control.data());
}
inline RankRecord &recordOf(const ShmSegment &control, int rank) {
  return reinterpret_cast<RankRecord *>(control.data() + kControlHeaderBytes)[rank];
}
/// The process a record names (pid 0 when the rank has not attached).
ProcessId processOf(const RankRecord &record);

/// Frees `job`'s name for a new job when no live job holds it: removes the segments of a job
/// whose processes are all dead, or of a creator that died while setting the segment up.
/// Returns "" when the name is free, else why not ("cpu-shm job "x" is already in use by another
/// job (created by pid N ...)"). Throws RuntimeError(System) when the control segment is not
/// this user's or not 0600 (ShmSegment::open).
std::string freeJobName(const std::string &job);

/// Describes the live job in a control segment: "created by pid N, K of R ranks attached".
std::string describeJob(const ShmSegment &control);

/// Whether the job in `control` is over for good: rank 0 (its creator) is dead.
bool creatorDead(const ShmSegment &control);

/// Marks the live job named `job` contested (ShmHeader::contested) when it runs without a
/// nonce: another job of its name showed up, whose ranks may be among its own.
void contestJob(const std::string &job);

/// Records in the job's control segment, when it still holds the job `names`, that `rank`
/// failed first (unless a failure is recorded already), so the ranks that then stop name it.
void markRankFailed(const ShmJobNames &names, int rank);

/// Removes what dead cpu-shm jobs of this user left in /dev/shm: every segment of a job whose
/// recorded processes are all dead, of a control segment whose creator died while setting it
/// up, and segments named for a job (and nonce) whose control segment is gone. Jobs that may
/// still run (a live process, or one in a PID namespace this one cannot see) are left alone.
/// Returns the names of the jobs whose segments it removed.
std::vector<std::string> reapStaleJobs();

/// Removes every object of the job `names` (every rank's staging and regions, found in
/// /dev/shm) and its control segment when that still holds the job's nonce. Mappings stay
/// valid; what is gone is the names.
void removeJobSegments(const ShmJobNames &names);

}  // namespace collplan
