// Unit tests of plan-tune's phases, each on its own, on the simulator (exact, deterministic).
#include "tuner/TuneReport.h"
#include "tuner/Tuner.h"
#include "tuner/phases/Bound.h"
#include "tuner/phases/Check.h"
#include "tuner/phases/Compile.h"
#include "tuner/phases/Confirm.h"
#include "tuner/phases/MeasureTables.h"
#include "tuner/phases/PlanMeasurements.h"
#include "tuner/phases/Prune.h"
#include "tuner/phases/Select.h"
#include "tuner/phases/Validate.h"
#include "tuner/phases/WriteBundle.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>

using namespace collplan;
using namespace collplan::tune;

namespace {

/// Allreduce f32 sum on a simulated 4-rank ring, 8 B to 64 KiB, quick and silent.
TuneSettings simSettings() {
  TuneSettings s;
  s.topologySpec = "ring:4";
  s.backend = "sim";
  s.minBytes = 8;
  s.maxBytes = 64 << 10;
  s.quick = true;
  s.quiet = true;
  return s;
}

/// The phases' shared state: the resolved request, its measurer and a silent log.
struct Phases : ::testing::Test {
  TuneResult result = resolveRequest(simSettings());
  Measurer measurer{requireBackend("sim"), result.topology, true};
  ProgressBar bar{false, false};
  TuneLog log{bar, true};

  std::vector<TableResult> compiled() {
    return compileTables(result.settings, result.topology, result.ranks, log);
  }
};

std::string validationError(const TuneSettings &s) {
  try {
    validateSettings(s);
  } catch (const TuneError &e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TunePhaseValidate, NamesTheFlagOfEachBadSetting) {
  EXPECT_EQ(validationError(simSettings()), "");
  TuneSettings backend = simSettings();
  backend.backend = "carrier-pigeon";
  EXPECT_NE(validationError(backend).find("carrier-pigeon"), std::string::npos);
  TuneSettings range = simSettings();
  range.minBytes = 1 << 20;
  range.maxBytes = 8;
  EXPECT_NE(validationError(range), "");
  TuneSettings algorithm = simSettings();
  algorithm.algorithms = {"no-such-algorithm"};
  EXPECT_NE(validationError(algorithm).find("no-such-algorithm"), std::string::npos);
}

TEST(TunePhaseValidate, ResolvesTheTopologyAndItsRanks) {
  const TuneResult r = resolveRequest(simSettings());
  EXPECT_EQ(r.ranks, 4);
  EXPECT_FALSE(r.fingerprint.empty());
  TuneSettings mismatch = simSettings();
  mismatch.ranks = 6;
  EXPECT_THROW(resolveRequest(mismatch), TuneError);
}

TEST_F(Phases, CompileGivesOneTablePerCollectiveDtypeAndOp) {
  result.settings.dtypes = {DType::F32, DType::F64};
  const std::vector<TableResult> tables = compiled();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].name(), "allreduce f32 sum");
  EXPECT_EQ(tables[1].name(), "allreduce f64 sum");
  // Plans do not depend on the dtype: both tables hold the same variants.
  ASSERT_EQ(tables[0].variants.size(), tables[1].variants.size());
  EXPECT_GT(tables[0].variants.size(), 3u);
  for (size_t v = 0; v < tables[0].variants.size(); ++v)
    EXPECT_EQ(tables[0].variants[v].variant.label, tables[1].variants[v].variant.label);
  // No two compiled variants share a plan (duplicates are noted, not kept).
  std::set<std::string> labels;
  for (const CompiledVariant &v : tables[0].variants)
    EXPECT_TRUE(labels.insert(v.variant.label).second);
}

TEST_F(Phases, CheckFindsNoWrongVariantAmongProvenPlans) {
  std::vector<TableResult> tables = compiled();
  EXPECT_EQ(checkTables(tables, measurer, log), 0);
  for (size_t v = 0; v < tables[0].variants.size(); ++v)
    EXPECT_NE(tables[0].statusOf(v).first, VariantStatus::Wrong) << tables[0].variants[v].variant.label;
}

TEST_F(Phases, PruneKeepsTheBestPredictionAndDropsOnlyFarSlowerOnes) {
  std::vector<TableResult> tables = compiled();
  EXPECT_EQ(resolvePruneFactor(result.settings, measurer), kNoPruning)
      << "exact times: nothing is pruned by default";
  const AlphaBeta ab = chooseAlphaBeta(result.topology, measurer, tables);
  EXPECT_GT(ab.bytesPerUs, 0);
  pruneTables(tables, ab, 1.0, log);  // factor 1: only the best prediction per size survives
  const TableMeasurements &m = tables[0].measurements;
  int eligible = 0;
  for (size_t v = 0; v < m.eligible.size(); ++v) {
    if (m.eligible[v]) ++eligible;
    else EXPECT_EQ(tables[0].statusOf(v).first, VariantStatus::Pruned);
  }
  EXPECT_GE(eligible, 1);
  EXPECT_EQ(tables[0].notesCount(VariantStatus::Pruned), int(m.eligible.size()) - eligible);
}

TEST_F(Phases, PlanCoversEveryCandidateAtEverySize) {
  std::vector<TableResult> tables = compiled();
  pruneTables(tables, chooseAlphaBeta(result.topology, measurer, tables), kNoPruning, log);
  const MeasurementPlan plan = planMeasurements(tables, measurer);
  const size_t variants = tables[0].variants.size(), sizes = tables[0].measurements.sizes.size();
  EXPECT_EQ(plan.groups.size(), sizes);
  EXPECT_EQ(plan.totalItems, variants * sizes);
  for (const MeasurementGroup &g : plan.groups) {
    EXPECT_EQ(g.variants.size(), variants);
    EXPECT_EQ(g.weights.size(), variants);
  }
}

TEST_F(Phases, MeasureSelectAndBuildABundleThatCoversEveryByteCount) {
  std::vector<TableResult> tables = compiled();
  checkTables(tables, measurer, log);  // plans the simulated ring cannot run are unsupported
  pruneTables(tables, chooseAlphaBeta(result.topology, measurer, tables), kNoPruning, log);
  const MeasurementPlan plan = planMeasurements(tables, measurer);
  const MeasureOutcome m = measureTables(tables, plan, measurer, 0, log);
  EXPECT_FALSE(m.interrupted);
  EXPECT_FALSE(m.budgetExhausted);
  EXPECT_EQ(m.finished, plan.totalItems);
  selectWinners(tables, plan, false);
  const TableResult &t = tables[0];
  EXPECT_TRUE(t.complete);
  for (size_t s = 0; s < t.choices.size(); ++s) {
    ASSERT_GE(t.choices[s].winner, 0);
    // The winner is the fastest variant measured at its size (sim times are exact).
    const double best = t.measurements.byVariant[size_t(t.choices[s].winner)][s].medianUs;
    for (size_t v = 0; v < t.variants.size(); ++v) {
      const Measurement &x = t.measurements.byVariant[v][s];
      if (t.measurements.eligible[v] && x.done)
        EXPECT_LE(best, x.medianUs) << t.variants[v].variant.label;
    }
  }
  ASSERT_FALSE(t.buckets.empty());
  EXPECT_EQ(t.buckets.front().minBytes, 0u);
  EXPECT_EQ(t.buckets.back().maxBytes, std::numeric_limits<uint64_t>::max());

  result.tables = std::move(tables);
  const std::optional<Bundle> bundle = buildBundle(result, measurer);
  ASSERT_TRUE(bundle);
  EXPECT_EQ(bundle->ranks, 4);
  EXPECT_EQ(bundle->backend, "sim");
  ASSERT_EQ(bundle->tables.size(), 1u);
  EXPECT_EQ(bundle->tables[0].buckets.size(), result.tables[0].buckets.size());
}

TEST_F(Phases, NothingMeasuredBuildsNoBundle) {
  result.tables = compiled();
  EXPECT_FALSE(buildBundle(result, measurer));
}

TEST_F(Phases, ConfirmationIsSkippedWhereTimesAreExact) {
  result.tables = compiled();
  pruneTables(result.tables, chooseAlphaBeta(result.topology, measurer, result.tables),
              kNoPruning, log);
  const MeasurementPlan plan = planMeasurements(result.tables, measurer);
  measureTables(result.tables, plan, measurer, 0, log);
  selectWinners(result.tables, plan, false);
  result.bundle = buildBundle(result, measurer);
  confirmBundle(result, measurer, log);
  EXPECT_TRUE(result.tables[0].confirmed.empty()) << "a simulation gives the same time again";
}

/// On a backend that moves data, every bucket of the written bundle is run again as
/// plan-bench --bundle runs it, and its time recorded beside the tune's.
TEST(TunePhaseConfirm, TimesEveryBucketOfTheBundleAsPlanBenchRunsIt) {
  TuneSettings s;
  s.backend = "cpu-threads";
  s.topologySpec = "local";
  s.ranks = 2;
  s.algorithms = {"one-shot", "ring"};
  s.minBytes = 8;
  s.maxBytes = 4096;
  s.quick = true;
  s.quiet = true;
  validateSettings(s);
  TuneResult r = resolveRequest(s);
  const Measurer measurer(requireBackend("cpu-threads"), r.topology, true);
  ProgressBar bar(false, false);
  TuneLog log(bar, true);
  r.tables = compileTables(r.settings, r.topology, r.ranks, log);
  ASSERT_EQ(checkTables(r.tables, measurer, log), 0);
  pruneTables(r.tables, chooseAlphaBeta(r.topology, measurer, r.tables), kNoPruning, log);
  const MeasurementPlan plan = planMeasurements(r.tables, measurer);
  measureTables(r.tables, plan, measurer, 0, log);
  selectWinners(r.tables, plan, false);
  r.bundle = buildBundle(r, measurer);
  ASSERT_TRUE(r.bundle);
  confirmBundle(r, measurer, log);
  const TableResult &t = r.tables[0];
  ASSERT_EQ(t.confirmed.size(), t.buckets.size());
  for (const Confirmation &c : t.confirmed) {
    EXPECT_TRUE(c.ran()) << "every bucket ran, with a correct result";
    EXPECT_LE(c.minUs, c.medianUs);
    EXPECT_LE(c.medianUs, c.maxUs);
  }
}

/// The bound is set beside the winners only where the topology is known: simulated, or named
/// with --topology (not `local`, whose figures are estimates, nor the job's own nodes); and no
/// simulated winner beats it.
TEST_F(Phases, BoundIsSetWhereTheTopologyIsKnownAndNoSimulatedWinnerBeatsIt) {
  EXPECT_TRUE(topologyKnown(result));
  TuneResult real = result;
  real.settings.backend = "cpu-threads";
  EXPECT_TRUE(topologyKnown(real)) << "ring:4 named with --topology";
  for (const char *spec : {"local", "local:4", "job"}) {
    real.settings.topologySpec = spec;
    EXPECT_FALSE(topologyKnown(real)) << spec;
  }
  result.tables = compiled();
  pruneTables(result.tables, chooseAlphaBeta(result.topology, measurer, result.tables),
              kNoPruning, log);
  const MeasurementPlan plan = planMeasurements(result.tables, measurer);
  measureTables(result.tables, plan, measurer, 0, log);
  selectWinners(result.tables, plan, false);
  boundTables(result, log);
  const TableResult &t = result.tables[0];
  ASSERT_TRUE(t.bound.has_value());
  EXPECT_GT(t.bound->latencyUs, 0);
  ASSERT_FALSE(t.buckets.empty());
  for (const BucketChoice &b : t.buckets) {
    const double fraction = boundFraction(t, b);
    EXPECT_GT(fraction, 0);
    EXPECT_LE(fraction, 1 + 1e-9) << "a simulated winner beat the bound at " << b.sizeIndex;
  }
  real.tables = result.tables;
  real.tables[0].bound.reset();
  boundTables(real, log);  // `job`: unknown, left unbounded
  EXPECT_FALSE(real.tables[0].bound.has_value());
}
