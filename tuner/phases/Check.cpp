// checkTables: the correctness check of every compiled variant, recorded in its table.
#include "tuner/phases/Check.h"

namespace collplan::tune {
namespace {

/// Checks variant v of `t`; returns whether it computed a wrong result.
bool checkVariant(TableResult &t, size_t v, const Measurer &measurer, TuneLog &log) {
  const std::string &label = t.variants[v].variant.label;
  try {
    const CheckOutcome c = measurer.check(t.variants[v].plan, t.benchCase);
    t.checkNotes[v] = c.note;
    if (!c.unsupported.empty()) {
      t.exclude(v, VariantStatus::Unsupported, c.unsupported);
      log.note("plan-tune: " + t.name() + " " + label + ": not runnable on this topology: " +
               c.unsupported);
      return false;
    }
    if (!c.ran || c.wrong == 0) return false;
    t.exclude(v, VariantStatus::Wrong,
              std::to_string(c.wrong) + " wrong elements (" + c.note + ")");
    log.alert("plan-tune: WRONG RESULT: " + t.name() + " " + label + ": " +
              std::to_string(c.wrong) + " wrong elements; it will not be chosen");
    return true;
  } catch (const std::exception &e) {
    t.exclude(v, VariantStatus::RunFailed, e.what());
    log.alert("plan-tune: " + t.name() + " " + label + " failed to run: " + e.what());
    return false;
  }
}

}  // namespace

int checkTables(std::vector<TableResult> &tables, const Measurer &measurer, TuneLog &log) {
  int wrong = 0;
  for (TableResult &t : tables)
    for (size_t v = 0; v < t.variants.size() && !interrupted(); ++v)
      wrong += checkVariant(t, v, measurer, log);
  return wrong;
}

}  // namespace collplan::tune
