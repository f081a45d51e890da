// measureTables: the measurement rounds of every planned group, with the budget and Ctrl-C.
#include "tuner/phases/MeasureTables.h"

#include "tuner/measure/ByteSize.h"

namespace collplan::tune {
namespace {

/// One measuring run over a plan's groups.
class MeasureRun {
public:
  MeasureRun(std::vector<TableResult> &tables, const Measurer &measurer, double budgetSeconds,
             TuneLog &log)
      : tables_(tables), measurer_(measurer), budget_(budgetSeconds), log_(log) {}

  MeasureOutcome run(const MeasurementPlan &plan) {
    log_.bar().start(plan.totalWeight, plan.totalItems);
    for (const MeasurementGroup &g : plan.groups) {
      if (stopRequested()) break;
      measureGroup(g);
    }
    log_.bar().finish();
    return out_;
  }

private:
  /// Ctrl-C stops after the current measurement.
  bool interruptRequested() {
    if (interrupted()) out_.interrupted = true;
    return out_.interrupted;
  }
  bool stopRequested() {
    if (!interruptRequested() && budget_ > 0 && log_.bar().elapsed() >= budget_)
      out_.budgetExhausted = true;
    return out_.interrupted || out_.budgetExhausted;
  }

  /// Rounds of one batch per active candidate until every one is stable.
  void measureGroup(const MeasurementGroup &g) {
    const bool oneBatch =
        budget_ > 0 && log_.bar().elapsed() + log_.bar().remaining() > budget_;
    std::vector<BatchState> states(g.variants.size());
    std::vector<bool> active(g.variants.size(), true);
    for (bool any = true; any && !interruptRequested();) {
      any = false;
      for (size_t k = 0; k < g.variants.size() && !interruptRequested(); ++k) {
        if (!active[k] || !tables_[g.table].measurements.eligible[g.variants[k]]) continue;
        const bool first = states[k].result.batches == 0;
        runBatch(g, k, oneBatch, states[k]);
        active[k] = !states[k].stable;
        any = any || active[k];
        if (first) advance(g, k);
      }
    }
  }

  /// One batch of the group's k-th variant, recorded; a wrong result or a failure excludes it.
  void runBatch(const MeasurementGroup &g, size_t k, bool oneBatch, BatchState &state) {
    TableResult &t = tables_[g.table];
    const size_t v = g.variants[k];
    const measure::SizePoint &size = t.measurements.sizes[g.size];
    const std::string at = measure::formatBytes(size.bytes);
    const std::string &label = t.variants[v].variant.label;
    try {
      measurer_.runBatch(t.variants[v].plan, t.benchCase, size, oneBatch, state);
      t.measurements.byVariant[v][g.size] = state.result;
      const uint64_t wrong = state.result.wrong;
      if (wrong == 0) return;
      t.exclude(v, VariantStatus::Wrong, std::to_string(wrong) + " wrong elements at " + at);
      ++out_.wrongVariants;
      log_.alert("plan-tune: WRONG RESULT: " + t.name() + " " + label + " at " + at + ": " +
                 std::to_string(wrong) + " wrong elements; it will not be chosen");
    } catch (const std::exception &e) {
      t.exclude(v, VariantStatus::RunFailed, "at " + at + ": " + e.what());
      log_.alert("plan-tune: " + t.name() + " " + label + " failed at " + at + ": " + e.what());
      state.stable = true;
    }
  }

  void advance(const MeasurementGroup &g, size_t k) {
    const TableResult &t = tables_[g.table];
    ++out_.finished;
    log_.bar().advance(g.weights[k], t.name() + " " +
                                         measure::formatBytes(t.measurements.sizes[g.size].bytes) +
                                         " " + t.variants[g.variants[k]].variant.label);
  }

  std::vector<TableResult> &tables_;
  const Measurer &measurer_;
  double budget_;
  TuneLog &log_;
  MeasureOutcome out_;
};

}  // namespace

MeasureOutcome measureTables(std::vector<TableResult> &tables, const MeasurementPlan &plan,
                             const Measurer &measurer, double budgetSeconds, TuneLog &log) {
  return MeasureRun(tables, measurer, budgetSeconds, log).run(plan);
}

}  // namespace collplan::tune
