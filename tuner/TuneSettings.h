// What plan-tune was asked to do: topology, backend, tables, sizes, budget, outputs.
#pragma once

#include "runtime/core/Collective.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace collplan::tune {

/// The tuner's inputs, already parsed into enums (plan-tune parses and names bad values).
struct TuneSettings {
  /// A file, preset, generator or `local`; empty: the job's own topology on a backend that
  /// discovers it (mpi: its nodes), `local` otherwise.
  std::string topologySpec;
  std::string backend = "cpu-threads"; ///< a registered backend's name
  std::vector<CollectiveKind> collectives{CollectiveKind::AllReduce};
  std::vector<DType> dtypes{DType::F32};
  std::vector<ReduceOp> ops{ReduceOp::Sum};
  /// Registered algorithm names to consider; empty: every one the registry holds.
  std::vector<std::string> algorithms;
  int ranks = 0;  ///< 0: the topology's (local: the number of cores, at least 2)
  int root = 0;   ///< for rooted collectives
  uint64_t minBytes = 8;
  uint64_t maxBytes = uint64_t(256) << 20;
  double budgetSeconds = 0;  ///< measuring stops when spent (0: no limit)
  bool quick = false;        ///< fewer parameter values and repetitions
  /// Keep only plans that fold every reduced element in rank order (markRankOrder), so the
  /// bundle's results are bitwise identical whatever bucket a message size lands in; the other
  /// variants are not applicable, with the proof's reason.
  bool fixedReductionOrder = false;
  /// Prune variants predicted this many times slower than the best at every size; 0 = auto
  /// (resolvePruneFactor): 4 on real backends, none (kNoPruning) where times are exact (a
  /// simulation is the measurement there, and cheap; the port model would wrongly prune
  /// duplication-heavy plans such as mesh on a torus).
  double pruneFactor = 0;
  std::string outputPath;  ///< the bundle; empty: none written
  std::string reportDir;   ///< CSV, JSON and SVG; empty: none written
  bool progress = false;   ///< progress on stderr even when it is not a terminal
  bool quiet = false;      ///< no progress, no notes (errors and the table still print)

  /// The settings as recorded in the bundle's "tuner" member and the report.
  nlohmann::json toJson() const;
};

/// The prune factor that prunes nothing (recorded as 0, "none", in bundles and reports).
inline constexpr double kNoPruning = 1e300;

/// "plan-tune 0.1.0": recorded in bundles.
std::string toolVersion();

}  // namespace collplan::tune
