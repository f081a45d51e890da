// The state of libcollplan-mpi.so: a collplan communicator per MPI communicator, staging
// buffers, and the count of calls run by collplan or handed to the MPI library.
#pragma once

#include "runtime/pmpi/MpiTypes.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace collplan::pmpi {

/// The MPI functions the library defines.
enum class Function {
  Allreduce, Allgather, ReduceScatterBlock, Alltoall, Bcast, Reduce, Gather, Scatter, Barrier,
  Iallreduce, Iallgather, IreduceScatterBlock, Ialltoall, Ibcast, Ireduce, Igather, Iscatter,
  Ibarrier,
};
inline constexpr int kFunctionCount = int(Function::Ibarrier) + 1;
/// Its MPI name: "MPI_Allreduce".
std::string_view mpiName(Function fn);

/// Marks this thread as inside collplan while it lives: the MPI calls collplan makes itself
/// (MPI_Comm_dup, MPI_Bcast on its own communicators, ...) then go straight to the library.
class InsideCollplan {
public:
  InsideCollplan() { ++depth_; }
  ~InsideCollplan() { --depth_; }
  InsideCollplan(const InsideCollplan &) = delete;
  InsideCollplan &operator=(const InsideCollplan &) = delete;
  static bool active() { return depth_ > 0; }

private:
  static thread_local int depth_;
};

/// One MPI communicator as the library sees it.
struct CommEntry {
  collplan_comm_t comm = nullptr;
  Fallback unavailable = Fallback::None;  ///< why there is no collplan communicator
  int rank = 0, size = 1;
  /// Contiguous copies of derived-datatype data (packed) and of misaligned reduction buffers.
  std::vector<unsigned char> sendStage, recvStage;
};

/// The library's process-wide state.
class Interposer {
public:
  static Interposer &instance();

  /// The entry of `comm`; its collplan communicator is created at its first collective, which
  /// every rank makes at the same point (MPI orders a communicator's collectives), so the
  /// collective creation matches across ranks.
  CommEntry &entry(MPI_Comm comm);
  /// Destroys `comm`'s collplan communicator (before MPI_Comm_free releases the handle).
  void forget(MPI_Comm comm);
  /// Destroys every collplan communicator and, with COLLPLAN_MPI_VERBOSE, reports the counts
  /// (before MPI_Finalize).
  void finalize();

  void count(Function fn, Fallback outcome) {
    counts_[size_t(fn)][size_t(outcome)].fetch_add(1, std::memory_order_relaxed);
  }
  /// COLLPLAN_MPI_DISABLE=1: every call goes to the MPI library (for side-by-side timings).
  bool disabled() const { return disabled_; }
  bool verbose() const { return verbosity_ > 0; }

private:
  Interposer();
  void create(MPI_Comm comm, CommEntry &entry);
  void report() const;

  std::mutex mutex_;
  std::map<MPI_Comm, CommEntry> comms_;
  /// Bumped whenever an entry goes, so no thread's cached lookup outlives it.
  std::atomic<uint64_t> generation_{0};
  std::array<std::array<std::atomic<uint64_t>, kFallbackCount>, kFunctionCount> counts_{};
  bool disabled_ = false;
  int verbosity_ = 0;  ///< 0: silent; 1: world rank 0 reports; 2 (=all): every rank
  std::string bundle_;
  bool bundleMissReported_ = false;
};

}  // namespace collplan::pmpi
