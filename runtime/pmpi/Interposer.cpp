// libcollplan-mpi.so's state: collplan communicators created at first use, the call counts and
// the report at MPI_Finalize.
#include "runtime/pmpi/Interposer.h"

#include "collplan_mpi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace collplan::pmpi {

thread_local int InsideCollplan::depth_ = 0;

std::string_view mpiName(Function fn) {
  static constexpr std::array<std::string_view, kFunctionCount> names = {
      "MPI_Allreduce", "MPI_Allgather", "MPI_Reduce_scatter_block", "MPI_Alltoall", "MPI_Bcast",
      "MPI_Reduce", "MPI_Gather", "MPI_Scatter", "MPI_Barrier", "MPI_Iallreduce",
      "MPI_Iallgather", "MPI_Ireduce_scatter_block", "MPI_Ialltoall", "MPI_Ibcast",
      "MPI_Ireduce", "MPI_Igather", "MPI_Iscatter", "MPI_Ibarrier"};
  return names[size_t(fn)];
}

namespace {

/// "1", "yes", "true" (any case) or "all" turn a switch on.
int switchLevel(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value || std::strcmp(value, "0") == 0) return 0;
  return std::strcmp(value, "all") == 0 ? 2 : 1;
}

int worldRank() {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

}  // namespace

Interposer::Interposer() {
  disabled_ = switchLevel("COLLPLAN_MPI_DISABLE") > 0;
  verbosity_ = switchLevel("COLLPLAN_MPI_VERBOSE");
  if (const char *bundle = std::getenv("COLLPLAN_BUNDLE")) bundle_ = bundle;
}

Interposer &Interposer::instance() {
  static Interposer interposer;
  return interposer;
}

CommEntry &Interposer::entry(MPI_Comm comm) {
  // Programs call collectives on one communicator over and over: this thread's last lookup
  // stands until a communicator is released (which bumps the generation).
  struct LastLookup {
    MPI_Comm comm;
    CommEntry *entry = nullptr;
    uint64_t generation = 0;
  };
  thread_local LastLookup last;
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (last.entry && last.comm == comm && last.generation == generation) return *last.entry;
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = comms_.try_emplace(comm);
  if (inserted) create(comm, it->second);
  last = {comm, &it->second, generation};
  return it->second;
}

/// Makes the collplan communicator of `comm`: with COLLPLAN_BUNDLE's plans, or the built-in
/// ones where the bundle does not fit (another rank count; the reason is printed once).
void Interposer::create(MPI_Comm comm, CommEntry &entry) {
  PMPI_Comm_rank(comm, &entry.rank);
  PMPI_Comm_size(comm, &entry.size);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    entry.unavailable = Fallback::Intercommunicator;
    return;
  }
  InsideCollplan inside;
  const char *bundle = bundle_.empty() ? nullptr : bundle_.c_str();
  if (collplan_comm_create_mpi(comm, bundle, &entry.comm) == COLLPLAN_SUCCESS) {
    if (bundle && verbose() && entry.rank == 0)
      std::fprintf(stderr, "collplan-mpi: a communicator of %d ranks runs the plans of %s\n",
                   entry.size, bundle);
    return;
  }
  if (bundle) {
    // A bundle serves one rank count: other communicators are expected to miss it, so only
    // the first miss is printed unless asked (it names a bad path or file at once).
    if ((verbose() || !bundleMissReported_) && entry.rank == 0)
      std::fprintf(stderr, "collplan-mpi: a communicator of %d ranks runs the built-in plans: %s\n",
                   entry.size, collplan_last_error());
    bundleMissReported_ = true;
    if (collplan_comm_create_mpi(comm, nullptr, &entry.comm) == COLLPLAN_SUCCESS) return;
  }
  if (entry.rank == 0)
    std::fprintf(stderr, "collplan-mpi: a communicator of %d ranks stays with MPI: %s\n",
                 entry.size, collplan_last_error());
  entry.comm = nullptr;
  entry.unavailable = Fallback::NoCommunicator;
}

void Interposer::forget(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = comms_.find(comm);
  if (it == comms_.end()) return;
  InsideCollplan inside;
  collplan_comm_destroy(it->second.comm);
  comms_.erase(it);
  generation_.fetch_add(1, std::memory_order_release);
}

void Interposer::finalize() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    InsideCollplan inside;
    for (auto &[comm, entry] : comms_) collplan_comm_destroy(entry.comm);
    comms_.clear();
    generation_.fetch_add(1, std::memory_order_release);
  }
  if (verbosity_ == 2 || (verbosity_ == 1 && worldRank() == 0)) report();
}

/// "collplan-mpi: rank 0: MPI_Allreduce: 12 by collplan, 3 to MPI (2 user-defined op, ...)".
void Interposer::report() const {
  const int rank = worldRank();
  int reported = 0;
  for (int fn = 0; fn < kFunctionCount; ++fn) {
    const auto &counts = counts_[size_t(fn)];
    uint64_t forwarded = 0;
    std::string reasons;
    for (int why = 1; why < kFallbackCount; ++why) {
      const uint64_t n = counts[size_t(why)].load(std::memory_order_relaxed);
      if (n == 0) continue;
      forwarded += n;
      reasons += std::string(reasons.empty() ? "" : ", ") + std::to_string(n) + " " +
                 std::string(describe(Fallback(why)));
    }
    const uint64_t ran = counts[0].load(std::memory_order_relaxed);
    if (ran + forwarded == 0) continue;
    ++reported;
    std::fprintf(stderr, "collplan-mpi: rank %d: %s: %llu by collplan, %llu to MPI%s%s%s\n", rank,
                 std::string(mpiName(Function(fn))).c_str(), (unsigned long long)ran,
                 (unsigned long long)forwarded, reasons.empty() ? "" : " (", reasons.c_str(),
                 reasons.empty() ? "" : ")");
  }
  if (reported == 0) std::fprintf(stderr, "collplan-mpi: rank %d: no collective calls\n", rank);
}

}  // namespace collplan::pmpi
