// The tuner: enumerate, compile, prune, check, measure, choose and build the bundle.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/topology/Topology.h"
#include "tuner/CostPrune.h"
#include "tuner/Progress.h"
#include "tuner/Selection.h"
#include "tuner/TuneSettings.h"
#include "tuner/Variants.h"
#include "tuner/bench/BenchCase.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace collplan::tune {

/// A bad request (unknown algorithm, topology, backend, size range, ...): the message says
/// which input and why; plan-tune prints it and exits 1.
struct TuneError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What happened to one (collective, dtype, op).
struct TableResult {
  bench::BenchCase benchCase;
  int enumerated = 0;                     ///< parameter combinations considered
  std::vector<CompiledVariant> variants;  ///< compiled, unique plans
  std::vector<VariantNote> notes;         ///< not applicable, failed, duplicate, pruned, wrong
  std::vector<bool> pruned;               ///< [variant]
  std::vector<std::string> checkNotes;    ///< [variant] what the correctness check did
  TableMeasurements measurements;         ///< [variant][size]
  std::vector<SizeChoice> choices;        ///< [size]; -1 where the size was not finished
  std::vector<BucketChoice> buckets;
  bool complete = false;                  ///< every planned measurement ran

  /// "allreduce f32 sum" (the table's key).
  std::string name() const;
  int measuredVariants() const;
  /// Variants whose (last) note has `status`.
  int notesCount(const std::string &status) const;
};

struct TuneResult {
  TuneSettings settings;
  Topology topology;
  std::string fingerprint;
  int ranks = 0;
  AlphaBeta alphaBeta;
  std::vector<TableResult> tables;
  bool interrupted = false;      ///< Ctrl-C stopped measuring
  bool budgetExhausted = false;  ///< --budget stopped measuring
  double seconds = 0;            ///< wall time of the whole run
  int wrongVariants = 0;         ///< variants that produced a wrong result somewhere
  std::optional<Bundle> bundle;  ///< absent when nothing was measured

  bool partial() const { return interrupted || budgetExhausted; }
};

/// Validates `settings` (throws TuneError) and resolves the topology and rank count.
void validateSettings(const TuneSettings &settings);

/// Runs the whole tuning. Notes (pruning, wrong results, failures) go to stderr unless quiet
/// or this process does not report (Backend::reportsLaunches: under mpirun, one process
/// speaks); the progress bar to stderr when enabled. Throws TuneError on a bad request; measurement
/// failures of single variants are notes, never fatal.
TuneResult runTune(const TuneSettings &settings);

/// Writes the bundle (saveBundleFile validates it first). Throws TuneError naming the path.
void writeBundle(const TuneResult &result, const std::string &path);

}  // namespace collplan::tune
