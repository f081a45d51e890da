// runTune: plan-tune's phases in a row, each in tuner/phases/.
#include "tuner/Tuner.h"

#include "tuner/phases/Bound.h"
#include "tuner/phases/Check.h"
#include "tuner/phases/Compile.h"
#include "tuner/phases/Confirm.h"
#include "tuner/phases/MeasureTables.h"
#include "tuner/phases/PlanMeasurements.h"
#include "tuner/phases/Prune.h"
#include "tuner/phases/Select.h"

#include <chrono>
#include <unistd.h>

namespace collplan::tune {
namespace {

/// "interrupted after ..." / "the budget ... is spent after ...": why the bundle is partial.
void sayStopped(const TuneResult &r, const MeasureOutcome &m, size_t items, TuneLog &log) {
  const std::string done = std::to_string(m.finished) + " of " + std::to_string(items);
  if (r.interrupted)
    log.note("plan-tune: interrupted after " + done +
             " measurements; writing what was measured");
  if (r.budgetExhausted)
    log.note("plan-tune: the budget of " + formatDuration(r.settings.budgetSeconds) +
             " is spent after " + done +
             " measurements; the bundle covers the sizes measured so far");
}

}  // namespace

TuneResult runTune(const TuneSettings &given) {
  const auto start = std::chrono::steady_clock::now();
  validateSettings(given);
  TuneResult r = resolveRequest(given);
  const Measurer measurer(requireBackend(r.settings.backend), r.topology, r.settings.quick);
  try {  // a machine without the backend's devices fails at once, not once per variant
    measurer.runner().checkUsable(r.ranks);
  } catch (const std::exception &e) {
    throw TuneError("--backend " + r.settings.backend + ": " + e.what());
  }
  r.settings.pruneFactor = resolvePruneFactor(r.settings, measurer);
  const bool terminal = ::isatty(2);
  ProgressBar bar(!r.settings.quiet && (terminal || r.settings.progress), terminal);
  TuneLog log(bar, r.settings.quiet);

  r.tables = compileTables(r.settings, r.topology, r.ranks, log);
  installInterruptHandler();
  r.wrongVariants = checkTables(r.tables, measurer, log);
  r.alphaBeta = chooseAlphaBeta(r.topology, measurer, r.tables);
  log.note("plan-tune: cost model " + r.alphaBeta.source);
  pruneTables(r.tables, r.alphaBeta, r.settings.pruneFactor, log);
  const MeasurementPlan plan = planMeasurements(r.tables, measurer);
  const MeasureOutcome m = measureTables(r.tables, plan, measurer, r.settings.budgetSeconds, log);
  r.interrupted = m.interrupted;
  r.budgetExhausted = m.budgetExhausted;
  r.wrongVariants += m.wrongVariants;
  sayStopped(r, m, plan.totalItems, log);
  selectWinners(r.tables, plan, r.partial());
  boundTables(r, log);
  r.bundle = buildBundle(r, measurer);
  confirmBundle(r, measurer, log);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace collplan::tune
