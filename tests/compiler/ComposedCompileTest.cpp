// An allreduce past the positions the verifiers index compiles as stages of their own sizes
// where its algorithm composes, as hierarchical allgathers and reduce-scatters always do; one
// that does not compose is still refused by its size.
#include "compiler/export/PlanCompiler.h"
#include "compiler/lowering/Algorithms.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"
#include "runtime/topology/Resolver.h"
#include "tests/compiler/ScheduleTestSupport.h"

#include <gtest/gtest.h>

using namespace collplan;

namespace {

using collplan::testing::summingSpec;

CollectiveSpec allreduce(int ranks) { return summingSpec(CollectiveKind::AllReduce, ranks); }

CompileOptions hierarchical(std::vector<std::string> params) {
  CompileOptions options;
  options.algorithm = "hierarchical";
  options.params = std::move(params);
  return options;
}

TEST(ComposedCompile, AHierarchicalAllReducePastThePositionsLimitIsComposed) {
  std::string error;
  auto compiled = compileCollective(
      allreduce(4096),
      hierarchical({"ranks-per-node=8", "intra=ring", "inter=recursive-doubling"}), error);
  ASSERT_TRUE(mlir::succeeded(compiled)) << error;
  const Plan &plan = compiled->plan;
  ASSERT_TRUE(plan.composition) << "compiled whole, not as stages";
  EXPECT_EQ(plan.ranks, 4096);
  EXPECT_EQ(plan.composition->ranksPerNode, 8);
  EXPECT_EQ(plan.composition->stage(StageRole::InterAllReduce).ranks, 512);
  EXPECT_EQ(plan.composition->stage(StageRole::IntraReduceScatter).algorithm, "ring");
  EXPECT_EQ(plan.onlyRank, -1) << "small enough to build every rank's program";
  // Ring reduce-scatter and allgather over 8 ranks, 7 rounds each; recursive doubling over 512.
  EXPECT_EQ(compiled->cost.alphaRounds, 7 + 9 + 7);
  // 512 nodes x 2 intra stages x 8 x 7 transfers, and 8 local indices x 512 x 9.
  EXPECT_EQ(compiled->cost.transfers, 512 * 2 * 56 + 8 * 512 * 9);
  ASSERT_FALSE(compiled->explanation.empty());
  EXPECT_NE(compiled->explanation.front().find("past the positions the verifiers index"),
            std::string::npos);
}

TEST(ComposedCompile, WithinTheLimitTheSameAlgorithmCompilesWhole) {
  std::string error;
  auto compiled = compileCollective(
      allreduce(8), hierarchical({"ranks-per-node=2", "intra=ring", "inter=ring"}), error);
  ASSERT_TRUE(mlir::succeeded(compiled)) << error;
  EXPECT_FALSE(compiled->plan.composition);
  EXPECT_EQ(compiled->plan.programs.size(), 8u);
}

TEST(ComposedCompile, AnAlgorithmThatDoesNotComposeIsRefusedByItsSize) {
  CompileOptions ring;
  ring.algorithm = "ring";
  std::string error;
  EXPECT_TRUE(mlir::failed(compileCollective(allreduce(4096), ring, error)));
  EXPECT_NE(error.find("exceeds the 4194304 (rank, chunk, slice) positions"), std::string::npos)
      << error;
  const AlgorithmInfo *hier = findAlgorithm("hierarchical");
  ASSERT_NE(hier, nullptr);
  AlgorithmParams params(*hier);
  ASSERT_FALSE(params.assign({"ranks-per-node=8"}));
  EXPECT_EQ(checkAlgorithm(allreduce(4096), *hier, params), std::nullopt);
  EXPECT_TRUE(compiledAsStages(allreduce(4096), *hier, params));
  EXPECT_FALSE(compiledAsStages(allreduce(2048), *hier, params));
}

TEST(ComposedCompile, HierarchicalAllGatherAndReduceScatterAreStagesAtEverySize) {
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    SCOPED_TRACE(toString(kind));
    std::string error;
    auto compiled = compileCollective(
        summingSpec(kind, 8), hierarchical({"ranks-per-node=2", "intra=ring", "inter=ring"}),
        error);
    ASSERT_TRUE(mlir::succeeded(compiled)) << error;
    const Plan &plan = compiled->plan;
    ASSERT_TRUE(plan.composition);
    EXPECT_EQ(plan.composition->plans.size(), 2u);
    EXPECT_EQ(plan.programs.size(), 8u);
    EXPECT_EQ(plan.onlyRank, -1);
    EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
    // Ring over 4 nodes (3 rounds) and over 2 local ranks (1 round); 2 local indices x 4 x 3
    // transfers and 4 nodes x 2 x 1.
    EXPECT_EQ(compiled->cost.alphaRounds, 3 + 1);
    EXPECT_EQ(compiled->cost.transfers, 2 * 4 * 3 + 4 * 2 * 1);
    const AlgorithmInfo *hier = findAlgorithm("hierarchical");
    AlgorithmParams params(*hier);
    ASSERT_FALSE(params.assign({"ranks-per-node=2"}));
    EXPECT_TRUE(compiledAsStages(summingSpec(kind, 8), *hier, params));
  }
}

// Past 2^20 ops over all ranks (an allgather's rank copies each of its N blocks into place) the
// plan holds rank 0's program; its file stores the stages all the same.
TEST(ComposedCompile, AComposedPlanTooLargeToBuildWholeHoldsRankZerosProgram) {
  std::string error;
  auto compiled = compileCollective(
      summingSpec(CollectiveKind::AllGather, 4096),
      hierarchical({"ranks-per-node=64", "intra=ring", "inter=ring"}), error);
  ASSERT_TRUE(mlir::succeeded(compiled)) << error;
  const Plan &plan = compiled->plan;
  EXPECT_EQ(plan.onlyRank, 0);
  ASSERT_TRUE(plan.composition);
  // Rank 0's program: its 4096 copies after the two stages.
  EXPECT_GE(plan.programs[0].numOps(), 4096u);
  EXPECT_EQ(composedProgramSize(*plan.composition, 4096).ops >= 4096ull * 4096, true);
  const std::string path = ::testing::TempDir() + "/composed-allgather-4096.json";
  ASSERT_NO_THROW(savePlanFile(plan, path));
  PlanLoadOptions one;
  one.onlyRank = 4095;
  const Plan mine = loadPlanFile(path, one);
  EXPECT_EQ(mine.programs[4095].numOps(), plan.programs[0].numOps());
  std::remove(path.c_str());
}

// The simulator runs such a plan as every rank's program built from its stages: the time of
// the plan as compiled (rank 0's program) is that of the plan loaded whole from its file. A
// bundle holding it is written from the stages as a plan file is.
TEST(ComposedCompile, APlanKeptForRankZeroIsSimulatedWhole) {
  std::string error;
  auto compiled = compileCollective(
      summingSpec(CollectiveKind::AllGather, 1024),
      hierarchical({"ranks-per-node=8", "intra=ring", "inter=ring"}), error);
  ASSERT_TRUE(mlir::succeeded(compiled)) << error;
  ASSERT_EQ(compiled->plan.onlyRank, 0);  // 1 024 x 1 160 ops
  const std::string path = ::testing::TempDir() + "/composed-allgather-1024.json";
  ASSERT_NO_THROW(savePlanFile(compiled->plan, path));
  PlanLoadOptions unproven;
  unproven.verify = false;
  const Plan whole = loadPlanFile(path, unproven);
  std::remove(path.c_str());
  ASSERT_EQ(whole.onlyRank, -1);
  const Topology topo = resolveTopology("fattree:128x8x8");
  const double kept = simulateTimeUs(compiled->plan, topo, 1 << 20);
  EXPECT_GT(kept, 0);
  EXPECT_EQ(kept, simulateTimeUs(whole, topo, 1 << 20));
  // A tuned bundle holding it is written from its stages too, and loads whole.
  Bundle bundle;
  bundle.topologyFingerprint = "fp";
  bundle.backend = "sim";
  bundle.ranks = 1024;
  bundle.toolVersion = "test";
  BucketTable &table = bundle.tables.emplace_back();
  table.collective = CollectiveKind::AllGather;
  Bucket &bucket = table.buckets.emplace_back();
  bucket.maxBytes = UINT64_MAX;
  bucket.plan = compiled->plan;
  bucket.winner = {"hierarchical", kept, kept};
  const std::string bundlePath = ::testing::TempDir() + "/composed-allgather-1024.bundle.json";
  ASSERT_NO_THROW(saveBundleFile(bundle, bundlePath));
  const Bundle loaded = loadBundleFile(bundlePath, {}, unproven);
  std::remove(bundlePath.c_str());
  EXPECT_EQ(loaded.tables.at(0).buckets.at(0).plan.onlyRank, -1);
}

TEST(ComposedCompile, NodesOfInterleavedRanksAreRefused) {
  // Two machines of two devices, ranks placed round-robin: node 0 holds ranks 0 and 2.
  const Topology machine = line(2);
  const Topology topo = multiNode({machine, machine}, {{0, 2}, {1, 3}}, LinkSpec{12.5, 2.0, true});
  CompileOptions options = hierarchical({"intra=ring"});
  options.topology = &topo;
  std::string error;
  EXPECT_TRUE(mlir::failed(compileComposedPlan(allreduce(4), options, error)));
  EXPECT_EQ(error, "a composed plan needs nodes of consecutive ranks, but node 0 of the "
                   "topology holds rank 2 as its local rank 1");
}

TEST(ComposedCompile, StagesThatCannotComposeAreRefusedWithTheReason) {
  // mesh-two-step's reduce-scatter keeps partial sums in scratch units of other blocks.
  std::string error;
  EXPECT_TRUE(mlir::failed(compileComposedPlan(
      allreduce(16), hierarchical({"ranks-per-node=4", "intra=mesh-two-step"}), error)));
  EXPECT_NE(error.find("the stages' scratch must hold each block's partial results"),
            std::string::npos)
      << error;
  CompileOptions sliced = hierarchical({"ranks-per-node=4", "intra=ring"});
  sliced.slices = 2;
  EXPECT_TRUE(mlir::failed(compileComposedPlan(allreduce(16), sliced, error)));
  EXPECT_EQ(error.substr(0, 57), "slices=2: a composed allreduce's stages are not sliced (a");
  EXPECT_TRUE(mlir::failed(compileComposedPlan(summingSpec(CollectiveKind::Broadcast, 4),
                                               hierarchical({"ranks-per-node=2"}), error)));
  EXPECT_EQ(error, "a composed plan is an allreduce, allgather or reduce_scatter, not broadcast");
  EXPECT_TRUE(mlir::failed(compileCollective(
      summingSpec(CollectiveKind::ReduceScatter, 8),
      hierarchical({"ranks-per-node=2", "inter=recursive-doubling"}), error)));
  EXPECT_EQ(error, "inter-node algorithm 'recursive-doubling' does not implement reduce_scatter "
                   "(it implements: allgather, allreduce)");
}

}  // namespace
