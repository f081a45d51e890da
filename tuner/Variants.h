// Variant enumeration: every registered algorithm × its meaningful parameter values, compiled.
#pragma once

#include "compiler/lowering/Algorithms.h"
#include "runtime/plan/Plan.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan::tune {

/// The origin of a variant whose plan is the runtime's own generator of the algorithm's name
/// (DefaultPlans.h), not the compiler's.
inline constexpr const char *kRuntimeOrigin = "runtime";

/// One point of the search space: an algorithm and the parameters it honours.
struct Variant {
  std::string algorithm;  ///< registry name ("ring", "pipelined-tree", ...)
  /// Where the algorithm comes from (built-in, a template file), or kRuntimeOrigin.
  std::string origin;
  AlgorithmParams params; ///< the algorithm's values, with the topology
  int slices = 1;         ///< pipelining slices (coll-slice)
  /// The parameters tuned, as key=value in axis order (the algorithm's keys, then slices).
  std::vector<std::pair<std::string, std::string>> settings;
  /// "ring ch2 bidir s2": the algorithm and the settings that differ from their spec's default,
  /// each labelled as its spec says (ParamSpec::label).
  std::string label;
  /// {"channels": "2", "bidirectional": "true", "slices": "2"}: the settings.
  nlohmann::json paramsJson() const;
};

/// A variant that compiled: its plan (size-generic) and its α-β cost.
struct CompiledVariant {
  Variant variant;
  Plan plan;
  double alphaRounds = 0;
  double beta = 0;
  /// α-β time at M bytes: alphaRounds·α + beta·M / bandwidth.
  double predictedUs(double alphaUs, double bytesPerUs, double bytes) const {
    return alphaRounds * alphaUs + beta * bytes / bytesPerUs;
  }
};

/// What became of a variant: measured, or the phase that stopped it.
enum class VariantStatus {
  Measured,       ///< measured at one size at least
  NotMeasured,    ///< a candidate, stopped (budget, Ctrl-C) before its turn
  NotApplicable,  ///< the algorithm's checks refuse these parameters for this collective
  CompileFailed,  ///< the compiler failed on it (worth reporting)
  Duplicate,      ///< the same plan as an earlier variant
  Unsupported,    ///< the simulated topology lacks what the plan needs
  Pruned,         ///< predicted far slower than the best at every size
  RunFailed,      ///< the backend failed to run it
  Wrong,          ///< computed a wrong result
};

/// "not-applicable", "compile-failed", ...: the report's spelling.
std::string_view toString(VariantStatus status);

/// A variant that is not measured (or stopped being), and why.
struct VariantNote {
  std::string label;
  VariantStatus status = VariantStatus::NotApplicable;
  std::string reason;
};

/// What enumeration and compilation produced for one (collective, op).
struct VariantSet {
  std::vector<CompiledVariant> compiled;  ///< unique plans, in registry order
  std::vector<VariantNote> notes;         ///< everything else, with reasons
  int enumerated = 0;                     ///< parameter combinations considered
  int count(VariantStatus status) const;
};

/// Parameter combinations per algorithm: the tuning axes of its registry entry
/// (AlgorithmInfo::tuning: e.g. ring's channels and direction, a pipelined tree's fan-out and
/// pipeline depth, the device groupings of the device-aware algorithms) times slices {1,2,4}
/// ({1,2} with `quick`, which also shortens the entries' axes). `filter` (names) restricts the
/// algorithms.
std::vector<Variant> enumerateVariants(const CollectiveSpec &spec, const Topology *topology,
                                       const std::vector<std::string> &filter, bool quick);

/// Checks (checkAlgorithm, as buildSchedule would: a refusal is NotApplicable), compiles each
/// variant once (a failure is CompileFailed) and drops plans identical to an earlier variant's
/// (parameters the algorithm ignores: Duplicate). Failures are notes, never fatal. Beside an
/// algorithm's default variant comes the runtime's own plan of that name where the runtime has
/// one (origin kRuntimeOrigin, label "two-shot (runtime)"), unless it is the same plan.
/// `onProgress(done, total)` is called after each variant.
VariantSet compileVariants(const CollectiveSpec &spec, const std::vector<Variant> &variants,
                           const std::function<void(size_t, size_t)> &onProgress = {});

/// Keeps the compiled variants whose plans fold every reduced element in rank order, marked so
/// (markRankOrder); the others become NotApplicable notes with the proof's reason. Plans of
/// collectives that reduce nothing are kept unmarked.
void keepRankOrderPlans(VariantSet &set);

/// The names in `filter` that the registry does not hold.
std::vector<std::string> unknownAlgorithms(const std::vector<std::string> &filter);

}  // namespace collplan::tune
