// boundTables: the lower bound of each table's collective on the tuned topology.
#include "tuner/phases/Bound.h"

#include "runtime/backends/Backend.h"

namespace collplan::tune {

bool topologyKnown(const TuneResult &result) {
  const Backend *backend = findBackend(result.settings.backend);
  if (backend && backend->simulated()) return true;
  const std::string &spec = result.settings.topologySpec;
  return !spec.empty() && spec != "job" && spec.rfind("local", 0) != 0;
}

void boundTables(TuneResult &result, TuneLog &log) {
  if (!topologyKnown(result)) return;
  for (TableResult &table : result.tables) {
    if (table.benchCase.ranks != result.topology.numRanks()) continue;
    BoundOptions options;
    options.root = table.benchCase.root;
    try {
      table.bound = collectiveBound(result.topology, table.benchCase.kind, options);
    } catch (const BoundError &e) {
      log.note("plan-tune: " + table.name() + ": no lower bound: " + e.what());
    }
  }
}

}  // namespace collplan::tune
