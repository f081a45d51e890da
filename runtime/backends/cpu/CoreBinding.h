// CoreBinding: one CPU per rank when the ranks fit the CPUs, as mpirun binds processes by default.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collplan {

/// How a job's ranks are placed: `core` binds rank r to CPU r mod C of the C CPUs the job may
/// use (one core per rank when they fit, else round-robin); `none` leaves placement to the
/// scheduler. Unbound, two ranks on a two-core machine sometimes shared one core for a whole
/// run (the scheduler does not move a thread that keeps yielding): a small allreduce then took
/// 4.8 us instead of 0.6 us; four ranks on two cores swung between 3.9 and 6 us per 8-byte
/// allreduce, and 3.8 us every run when bound round-robin.
enum class BindMode { Core, None };

/// COLLPLAN_BIND ("core", the default, or "none"). Returns an error naming the variable and the
/// accepted values when it holds anything else.
std::optional<std::string> bindModeFromEnv(BindMode &mode);

/// The CPUs the calling thread may run on (its affinity mask), in increasing order. Read it once
/// before binding anything: a bound thread's mask is its one CPU.
std::vector<int> allowedCpus();

/// The CPU rank `rank` of `ranks` is bound to under `mode` (cpus[rank mod cpus.size()]), or -1
/// (mode none, no CPUs, or a rank outside 0..ranks-1).
int cpuForRank(BindMode mode, const std::vector<int> &cpus, int rank, int ranks);

/// True when every rank gets a CPU of its own under `mode` (then it may poll before yielding).
bool ranksOwnTheirCores(BindMode mode, const std::vector<int> &cpus, int ranks);

/// Binds the calling thread (and threads it starts later) to `cpu`; false when the OS refuses.
bool bindCallerToCpu(int cpu);

/// Polls before yielding for a rank that owns its core (COLLPLAN_WAIT_SPINS still overrides):
/// the peer's flag usually lands within these ~1.5 us, which saves the sched_yield round trip
/// (0.65 instead of 0.9 us for a 2-rank 8-byte allreduce). Unbound ranks spin 0 (see Wait.h).
inline constexpr int kSpinsWhenBound = 32;

}  // namespace collplan
