// The backend interface and registry: what runs a job's ranks (cpu-threads, cpu-shm, mpi, cuda) or
// times plans without moving data (sim), looked up by name by the API, the tools and the tuner.
#pragma once

#include "runtime/exec/Executor.h"
#include "runtime/exec/RankSession.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/exec/Wait.h"
#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// What this process opens of a job.
struct JobOptions {
  int ranks = 0;
  /// This process's rank, for backends with one rank per process; -1 otherwise.
  int rank = -1;
  /// Names the job's shared resources, for backends with one rank per process: every process
  /// of the job passes the same name.
  std::string job;
  WaitPolicy policy = defaultWaitPolicy();
  /// The backend's own handle of the processes of the job, for backends whose jobs a launcher
  /// already made (mpi: a `const MPI_Comm *`); nullptr: the backend's default (mpi:
  /// MPI_COMM_WORLD). Only read while the job is opened.
  const void *native = nullptr;
};

/// This process's part of a job: the transports of the ranks it holds.
class Job {
public:
  virtual ~Job() = default;
  /// Rank `rank`'s transport, waiting as `policy` says. Throws RuntimeError (InvalidArgument)
  /// for a rank this process does not hold.
  virtual std::unique_ptr<Transport> transport(int rank, const WaitPolicy &policy) = 0;
  /// The topology the job's ranks run on, where the backend discovers it (mpi: its nodes and
  /// this machine's sockets); std::nullopt where only a topology file can say.
  virtual std::optional<Topology> topology() const { return std::nullopt; }
  /// For jobs whose processes set up together (Backend::startedByItsLauncher): collective over
  /// them, throws RuntimeError on every process when any failed a set-up step (`failure`
  /// non-empty there, with `code`), naming the lowest such rank, so no process waits on a peer
  /// that gave up. Default: throws this process's own failure, if any.
  virtual void agreeOnSetUp(const std::string &failure, ErrorCode code) {
    if (!failure.empty()) throw RuntimeError(code, failure);
  }
};

class DeviceJob;

/// What a backend's own collectives enqueue on the ranks of a DeviceJob (NativeCollectives::open):
/// the library's handles of those ranks, released with this object.
class NativeDeviceCalls {
public:
  virtual ~NativeDeviceCalls() = default;
  /// Enqueues one call of `kind` on every rank of the job (calls[r] is rank r's, device
  /// pointers) on the job's streams, without waiting; `root` for rooted collectives. Throws
  /// std::runtime_error naming the library call that failed.
  virtual void enqueue(CollectiveKind kind, int root, const std::vector<CallBuffers> &calls) = 0;
};

/// A backend's own implementation of the collectives (mpi: MPI's MPI_Allreduce and the rest;
/// cuda: NCCL's), which plan-bench --baseline times beside the plans, on the same ranks and the
/// same way. Like Backend, it serves its backend's kind: `run` on host ranks, `checkJob` and
/// `open` on devices.
class NativeCollectives {
public:
  virtual ~NativeCollectives() = default;
  /// What users know it as, for headers: "MPI_Allreduce", "ncclAllReduce".
  virtual std::string functionName(CollectiveKind kind) const = 0;
  /// The library this process uses, for headers ("NCCL 2.28.9"); "" where the name says it.
  virtual std::string library() const { return ""; }
  /// Throws std::invalid_argument naming what it lacks (MPI has no f16 or bf16; a build or a
  /// machine without the library).
  virtual void check(CollectiveKind kind, DType dtype) const = 0;
  /// Host ranks: one call on this process's rank, inside Backend::launch's body (every rank
  /// calls it alike); `root` for rooted collectives.
  virtual void run(CollectiveKind kind, const CallBuffers &call, int root) const;
  /// Devices: throws std::invalid_argument where the ranks of `job` are placed so that the
  /// library cannot run them (NCCL: two ranks on one GPU). Needs no device memory.
  virtual void checkJob(const DeviceJob &job) const { (void)job; }
  /// Devices: the library's handles of every rank of `job` (NCCL: one communicator per rank),
  /// released with the result. Throws std::runtime_error naming the call that failed.
  virtual std::unique_ptr<NativeDeviceCalls> open(DeviceJob &job) const;
};

/// A stream of a device API (cudaStream_t), opaque so the registry needs no device headers.
using DeviceStream = void *;

/// This process's ranks of a job whose call buffers are device memory and whose calls are
/// enqueued on device streams without the host waiting (cuda): what plan-bench and plan-tune
/// drive on such a backend. Every rank of the job is held by this process.
class DeviceJob {
public:
  virtual ~DeviceJob() = default;
  /// "8 virtual ranks on device 0 (NVIDIA H100 80GB HBM3)", for reports and errors.
  virtual std::string describe() const = 0;
  virtual int ranks() const = 0;
  /// Rank `rank`'s device (its CUDA ordinal).
  virtual int deviceOf(int rank) const = 0;
  /// The stream rank `rank`'s calls are enqueued on (the ranks of one device share one).
  virtual DeviceStream streamOf(int rank) const = 0;
  /// Zero-filled device memory of rank `rank`'s device. Throws RuntimeError(System) when out.
  virtual void *allocate(int rank, size_t bytes) = 0;
  virtual void release(int rank, void *p) = 0;
  /// Host-to-device and device-to-host copies that wait (set-up and checks, never timed).
  virtual void copyIn(int rank, void *device, const void *host, size_t bytes) = 0;
  virtual void copyOut(int rank, void *host, const void *device, size_t bytes) = 0;
  /// Enqueues one call of `plan` on every rank: calls[r] is rank r's (device pointers). Throws
  /// RuntimeError(Plan) for a plan the devices cannot run, and a failure a kernel recorded.
  virtual void enqueue(const Plan &plan, const std::vector<CallBuffers> &calls) = 0;
  /// The ranks one launch runs with rank `rank`: those of its device, ascending.
  virtual const std::vector<int> &ranksWith(int rank) const = 0;
  /// Enqueues one call of `plan` on the ranks of `rank`'s device only, on `stream` (the API's
  /// launches): calls[i] is ranksWith(rank)[i]'s. Throws as enqueue.
  virtual void enqueueDevice(int rank, const Plan &plan, const std::vector<CallBuffers> &calls,
                             DeviceStream stream) = 0;
  /// Times `calls` calls that `call(i)` enqueues back to back, as a job makes them: an event on
  /// every stream before each call and one after the last, with no wait in between, so a call's
  /// host work overlaps the device's work on the one before (as nccl-tests times). Returns each
  /// call's seconds, from its event to the next, on the slowest device; throws a failure a
  /// kernel recorded.
  virtual std::vector<double> timeCalls(int calls, const std::function<void(int)> &call) = 0;
  /// Waits for everything enqueued; throws a failure a kernel recorded.
  virtual void synchronize() = 0;
};

/// What a launched rank does, on its session; what it returns comes back to the launcher (through
/// a pipe when the rank is another process), in rank order.
using RankBody = std::function<std::string(RankSession &session)>;

/// How a backend runs a job's ranks: what decides how its plans are run and measured.
enum class BackendKind {
  HostRanks,  ///< threads or processes, each rank on a RankSession (openJob, launch)
  Devices,    ///< buffers in device memory, calls enqueued on device streams (openDeviceJob)
  Simulated,  ///< plans timed on a topology, no data moved (simulateUs)
};

/// One backend. Everything the runtime, the tools and the tuner need to know about it lives in
/// its entry; nothing elsewhere compares backend names.
class Backend {
public:
  virtual ~Backend() = default;
  /// The name users give it (--backend, COLLPLAN_BACKEND, collplan_config_t::backend).
  virtual std::string_view name() const = 0;
  /// One line for --help and error messages.
  virtual std::string_view summary() const = 0;

  /// How it runs ranks; each kind has its own members below (host ranks: openJob, launch;
  /// devices: openDeviceJob, openDeviceRank; simulated: simulateUs).
  virtual BackendKind kind() const { return BackendKind::HostRanks; }
  /// kind() is Simulated: times plans on a topology instead of running them.
  bool simulated() const { return kind() == BackendKind::Simulated; }
  /// kind() is Devices: launch() and openJob() refuse, and tools measure through
  /// openDeviceJob().
  bool runsOnDevices() const { return kind() == BackendKind::Devices; }
  /// Each rank of a job is a process of its own (the job is opened once per process).
  virtual bool oneRankPerProcess() const { return false; }
  /// Its processes are started by another program (mpirun), not by launch(): a tool run on it
  /// is one of those processes and cannot start a job of its own beside it.
  virtual bool startedByItsLauncher() const { return false; }
  /// How the ranks of a `ranks`-rank job that the API opens (the user's threads or processes,
  /// not launch()'s) wait for their peers: defaultWaitPolicy(), or what the backend knows of
  /// the job's shape (cpu backends: poll before yielding when every rank can have a core).
  virtual WaitPolicy waitPolicyFor(int ranks) const {
    (void)ranks;
    return defaultWaitPolicy();
  }
  /// What one measurement costs besides the collective itself (threads or processes started,
  /// set-up), in µs: the tuner plans its time with it.
  virtual double launchOverheadUs() const = 0;

  /// Opens this process's part of a job. Throws RuntimeError with the option at fault.
  virtual std::unique_ptr<Job> openJob(const JobOptions &options) const = 0;
  /// Runs `body` on every rank of a new job of `ranks` ranks started for the purpose (threads
  /// of this process, or forked processes), each rank bound to its core when COLLPLAN_BIND
  /// allows, and returns what each rank's body returned. Throws std::runtime_error with the
  /// first failing rank's message (the others are stopped). For one rank per process, call it
  /// before this process starts any thread.
  virtual std::vector<std::string> launch(int ranks, const RankBody &body) const = 0;
  /// Whether this process reports what launch() returned: false on all but one process of a
  /// job whose processes all call launch alike (mpi: every rank but 0 of MPI_COMM_WORLD), so a
  /// tool run under mpirun prints its results once (and its notes and progress: ask before any
  /// launch; mpi joins the job to answer).
  virtual bool reportsLaunches() const { return true; }
  /// The topology of the job launch() runs on, where the backend discovers it (mpi: the nodes
  /// of MPI_COMM_WORLD's processes); std::nullopt otherwise. Every process of a backend started
  /// by its launcher must call it alike (it is collective there).
  virtual std::optional<Topology> launchTopology() const { return std::nullopt; }
  /// Its own collectives, on the ranks of launch() or of a DeviceJob; nullptr where it has
  /// none.
  virtual const NativeCollectives *nativeCollectives() const { return nullptr; }
  /// Backends that run on devices: every rank of a job of `ranks` ranks in this process, on the
  /// devices the backend's environment assigns. Throws RuntimeError (Unsupported where no device
  /// is usable) naming the reason.
  virtual std::unique_ptr<DeviceJob> openDeviceJob(int ranks) const;
  /// Backends that run on devices: this process's one rank (`options.rank`) of a job whose
  /// ranks are processes, which every process opens alike with the same `options.job` name.
  /// The job holds that rank alone (ranksWith(rank) is {rank}). Throws RuntimeError.
  virtual std::unique_ptr<DeviceJob> openDeviceRank(const JobOptions &options) const;
  /// Simulated backends: the time of `plan` on `topology` for a message of `bytes`, in µs.
  /// Throws SimError where the plan cannot run there.
  virtual double simulateUs(const Plan &plan, const Topology &topology, uint64_t bytes) const;
};

/// Every registered backend, in the order --help lists them.
const std::vector<const Backend *> &backends();
/// The backend named `name`, or nullptr.
const Backend *findBackend(std::string_view name);
/// The backend named `name`; throws std::invalid_argument "unknown backend "x" (expected one
/// of: cpu-threads, cpu-shm, mpi, cuda, sim)" otherwise (mpi when built with MPI, cuda with nvcc).
const Backend &requireBackend(std::string_view name);
/// "cpu-threads, cpu-shm, mpi, cuda, sim".
std::string backendNames();

/// The registry's entries (defined with their backends).
const Backend &cpuThreadsBackend();
const Backend &cpuShmBackend();
const Backend &simBackend();
/// Defined only when CMake found MPI (findBackend("mpi") says whether it exists).
const Backend &mpiBackend();
/// Defined only when CMake found nvcc (findBackend("cuda") says whether it exists).
const Backend &cudaBackend();

}  // namespace collplan
