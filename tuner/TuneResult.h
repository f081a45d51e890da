// What plan-tune produces, phase by phase: the tables of variants, their measurements and
// choices, and the run's outcome.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/sim/LowerBound.h"
#include "runtime/topology/Topology.h"
#include "tuner/CostPrune.h"
#include "tuner/Selection.h"
#include "tuner/TuneSettings.h"
#include "tuner/Variants.h"
#include "tuner/measure/BenchCase.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace collplan::tune {

/// A bad request (unknown algorithm, topology, backend, size range, ...): the message says
/// which input and why; plan-tune prints it and exits 1.
struct TuneError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One bucket's plan run from the bundle as plan-bench runs it, in separate launches: the
/// median over launches of each launch's time, and the fastest and slowest launch (µs; all 0
/// where a launch failed or computed a wrong result).
struct Confirmation {
  double medianUs = 0, minUs = 0, maxUs = 0;
  bool ran() const { return medianUs > 0; }
};

/// What happened to one (collective, dtype, op).
struct TableResult {
  measure::BenchCase benchCase;
  int enumerated = 0;                     ///< parameter combinations considered
  std::vector<CompiledVariant> variants;  ///< compiled, unique plans
  std::vector<VariantNote> notes;         ///< not applicable, failed, duplicate, pruned, wrong
  std::vector<std::string> checkNotes;    ///< [variant] what the correctness check did
  TableMeasurements measurements;         ///< [variant][size]; eligible: still a candidate
  std::vector<SizeChoice> choices;        ///< [size]; -1 where the size was not finished
  std::vector<BucketChoice> buckets;
  /// [bucket] its plan from the written bundle, timed as plan-bench --bundle times it
  /// (confirmBundle); empty where not confirmed.
  std::vector<Confirmation> confirmed;
  /// The topology's lower bound of this collective (boundTables), where the topology is known.
  std::optional<CollectiveBound> bound;
  bool complete = false;                  ///< every planned measurement ran

  /// A table of `c` over `set`'s variants at `sizes`: every variant a candidate, nothing
  /// measured or predicted yet.
  TableResult(const measure::BenchCase &c, const VariantSet &set,
              std::vector<measure::SizePoint> sizes);

  /// "allreduce f32 sum" (the table's key).
  std::string name() const;
  int measuredVariants() const;
  /// Variants whose (last) note has `status`.
  int notesCount(VariantStatus status) const;
  /// Variant v's status and its reason: its last note's, else measured or not measured.
  std::pair<VariantStatus, std::string> statusOf(size_t v) const;
  /// Variant v stops being a candidate, for `reason`.
  void exclude(size_t v, VariantStatus status, const std::string &reason);
};

struct TuneResult {
  TuneSettings settings;  ///< as run: the topology resolved, quiet where it does not report
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

}  // namespace collplan::tune
