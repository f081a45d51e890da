// CoreBinding: one CPU per rank when the ranks fit the CPUs, as mpirun binds processes by default.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// How a job's ranks are placed: `core` binds rank r to the r-th CPU the job may use when there
/// are at least as many CPUs as ranks; `none` leaves placement to the scheduler. Unbound, two
/// ranks on a two-core machine sometimes share one core for a whole run (the scheduler does not
/// move a thread that keeps yielding): a small allreduce then takes 4.8 us instead of 0.6 us.
enum class BindMode { Core, None };

/// COLLPLAN_BIND ("core", the default, or "none"). Returns an error naming the variable and the
/// accepted values when it holds anything else.
std::optional<std::string> bindModeFromEnv(BindMode &mode);

/// The CPUs the calling thread may run on (its affinity mask), in increasing order. Read it once
/// before binding anything: a bound thread's mask is its one CPU.
std::vector<int> allowedCpus();

/// The CPU rank `rank` of `ranks` is bound to under `mode`, or -1 (mode none, or more ranks than
/// `cpus`).
int cpuForRank(BindMode mode, const std::vector<int> &cpus, int rank, int ranks);

/// Binds the calling thread (and threads it starts later) to `cpu`; false when the OS refuses.
bool bindCallerToCpu(int cpu);

/// Polls before yielding for a rank that owns its core (COLLPLAN_WAIT_SPINS still overrides):
/// the peer's flag usually lands within these ~1.5 us, which saves the sched_yield round trip
/// (0.65 instead of 0.9 us for a 2-rank 8-byte allreduce). Unbound ranks spin 0 (see Wait.h).
inline constexpr int kSpinsWhenBound = 32;

}  // namespace collplan
