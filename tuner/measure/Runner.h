// Runner: how plans are timed on one kind of backend (host ranks, devices, a simulator), chosen
// once per backend from its registry entry (makeRunner).
#pragma once

#include "runtime/backends/Backend.h"
#include "runtime/topology/Topology.h"
#include "tuner/measure/BenchCase.h"
#include "tuner/measure/PlanSource.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collplan::measure {

/// How each size is measured.
struct LoopSettings {
  int warmup = 3;     ///< untimed calls before the timed ones
  int reps = 0;       ///< timed calls; 0: autoRepetitions(bytes)
  bool check = true;  ///< one untimed call on poisoned output, compared with the host reference
  /// Call buffers from Transport::allocateShared where the backend has it (cpu-shm: regions
  /// peers read in place, what collplan_mem_alloc hands applications), else the heap.
  bool sharedBuffers = true;
};

/// Called before each size (index into the sizes; by rank 0 where ranks run apart).
using ProgressFn = std::function<void(size_t index, const SizePoint &size)>;

/// What one rank (or one job of devices, whose calls end together) saw: per size, the seconds of
/// each timed call and its #wrong (0 when unchecked).
struct RankTimes {
  std::vector<std::vector<double>> seconds;
  std::vector<uint64_t> wrong;
};

/// Per size, the median over repetitions of the slowest rank's time, in µs; and #wrong summed
/// over ranks.
struct SizeResult {
  double timeUs = 0;
  uint64_t wrong = 0;
  /// The slowest rank's time of each repetition, in µs, sorted (for p99 and for pooling the
  /// repetitions of several runs, as the tuner does).
  std::vector<double> samplesUs;
};
std::vector<SizeResult> combineRanks(const std::vector<RankTimes> &ranks);

/// Times plans, and the backend's own collectives, on one backend. plan-bench, plan-tune,
/// calibrate and the Python module measure through it; each kind of backend has one runner
/// (HostRanksRunner.h, DeviceRunner.h, SimRunner.h), so no caller asks which kind it has.
class Runner {
public:
  explicit Runner(const Backend &backend) : backend_(backend) {}
  virtual ~Runner() = default;
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  const Backend &backend() const { return backend_; }

  /// Every size of `c` with the plan `source` gives for it: checked (settings.check, where the
  /// runner moves data), warmed up and timed as `settings` say; `progress` before each size.
  /// Throws std::invalid_argument for a run beyond this machine's memory, RuntimeError /
  /// PlanError / std::runtime_error with the failing rank's message, SimError for a plan the
  /// simulator cannot run.
  virtual std::vector<SizeResult> run(const PlanSource &source, const BenchCase &c,
                                      const std::vector<SizePoint> &sizes,
                                      const LoopSettings &settings,
                                      const ProgressFn &progress = {}) const = 0;

  /// Throws std::invalid_argument when the backend's own collectives (Backend::
  /// nativeCollectives) cannot run `c`: it has none, they lack its type, or the job's placement
  /// does not suit them. Measures nothing.
  virtual void checkNative(const BenchCase &c) const = 0;
  /// The backend's own collectives timed as run() times plans (a baseline). Throws as run(),
  /// and std::runtime_error when they compute a wrong result where they are checked.
  virtual std::vector<SizeResult> runNative(const BenchCase &c,
                                            const std::vector<SizePoint> &sizes,
                                            const LoopSettings &settings) const = 0;

  /// True where times are computed rather than measured (a simulation): one exact time per
  /// size, no warm-up, no repetitions, no #wrong.
  virtual bool exact() const { return false; }
  /// The time of a size, for report headers: "the slowest rank".
  virtual std::string timeMeaning() const = 0;
  /// Throws, naming the reason, where this machine cannot run `ranks` ranks of the backend at
  /// all (a device backend without a device): a tool asks once, before its work.
  virtual void checkUsable(int ranks) const { (void)ranks; }
  /// Why `plan` cannot run here at all (a simulated topology without a feature it needs), or
  /// nothing.
  virtual std::optional<std::string> unsupported(const Plan &plan, const BenchCase &c) const;
  /// The runner that checks the results of this one's plans of `ranks` ranks: itself where it
  /// moves data; nullptr, with the reason in `why`, where none can.
  virtual const Runner *resultChecker(int ranks, std::string &why) const;

protected:
  /// The backend's own collectives; std::invalid_argument where it has none.
  const NativeCollectives &native() const;

private:
  const Backend &backend_;
};

/// The runner of `backend`'s kind (Backend::kind): the one place that asks. `topology` is what
/// a simulated backend times plans on; std::invalid_argument when it needs one and gets none.
std::unique_ptr<Runner> makeRunner(const Backend &backend, const Topology *topology = nullptr);

}  // namespace collplan::measure
