// Algorithms that state rank 0's program under a symmetry compile to the same plan as the
// pipeline over every rank's schedule, field for field and op for op, at 2..64 ranks; a rule that
// states a wrong program is refused as a compiler defect, not returned as a plan.
#include "compiler/export/PlanCompiler.h"
#include "compiler/lowering/Algorithms.h"
#include "runtime/core/Text.h"
#include "runtime/plan/PlanJson.h"
#include "tests/compiler/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace collplan;

namespace {

constexpr int kRankCounts[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 64};

using collplan::testing::summingSpec;

/// The parameter sets a test compiles `algorithm` with: its defaults, then each value of each
/// tuning axis on its own.
std::vector<std::vector<std::string>> parameterSets(const AlgorithmInfo &algorithm,
                                                    const CollectiveSpec &spec) {
  std::vector<std::vector<std::string>> sets = {algorithm.example};
  for (const TuningAxis &axis : algorithm.tuning)
    for (const std::string &value : axis.values(spec, /*quick=*/false)) {
      std::vector<std::string> set = algorithm.example;
      set.push_back(axis.key + "=" + value);
      sets.push_back(set);
    }
  return sets;
}

CompiledPlan compiled(const CollectiveSpec &spec, CompileOptions options) {
  std::string error;
  mlir::FailureOr<CompiledPlan> plan = compileCollective(spec, options, error);
  if (failed(plan)) ADD_FAILURE() << options.algorithm << ": " << error;
  return failed(plan) ? CompiledPlan{} : std::move(*plan);
}

TEST(SymmetricCompile, StatedProgramsAreThePipelinesPlanOpForOp) {
  int stated = 0;
  for (const AlgorithmInfo &algorithm : algorithms()) {
    if (!algorithm.symmetricProgram) continue;
    for (CollectiveKind kind : algorithm.kinds)
      for (int n : kRankCounts) {
        const CollectiveSpec spec = summingSpec(kind, n);
        for (const std::vector<std::string> &params : parameterSets(algorithm, spec)) {
          AlgorithmParams values(algorithm, nullptr);
          ASSERT_FALSE(values.assign(params));
          if (checkAlgorithm(spec, algorithm, values)) continue;
          if (!algorithm.symmetricProgram(spec, values)) continue;
          SCOPED_TRACE(algorithm.name + " " + std::string(toString(kind)) + " N=" +
                       std::to_string(n) + " " + joined(params));
          CompileOptions options;
          options.algorithm = algorithm.name;
          options.params = params;
          const CompiledPlan direct = compiled(spec, options);
          options.everyRank = true;
          const CompiledPlan reference = compiled(spec, options);
          ASSERT_TRUE(direct.plan.symmetry.has_value());
          EXPECT_EQ(planToJson(direct.plan).dump(1), planToJson(reference.plan).dump(1));
          EXPECT_EQ(direct.cost.alphaRounds, reference.cost.alphaRounds);
          EXPECT_DOUBLE_EQ(direct.cost.beta, reference.cost.beta);
          EXPECT_EQ(direct.cost.transfers, reference.cost.transfers);
          EXPECT_DOUBLE_EQ(direct.cost.bytesMoved, reference.cost.bytesMoved);
          ++stated;
        }
      }
  }
  // ring: three collectives at 16 rank counts (default parameters and the one-lane axis
  // values); recursive doubling: two collectives at the 6 powers of two; direct and pairwise
  // all-to-all at 16 rank counts.
  EXPECT_GE(stated, 3 * 16 + 2 * 6 + 2 * 16);
}

TEST(SymmetricCompile, OtherParametersCompileEveryRank) {
  const AlgorithmInfo *ring = findAlgorithm("ring");
  ASSERT_NE(ring, nullptr);
  const CollectiveSpec spec = summingSpec(CollectiveKind::AllReduce, 6);
  for (const char *param : {"channels=2", "bidirectional=true", "order=0,2,1,3,4,5"}) {
    AlgorithmParams values(*ring, nullptr);
    ASSERT_FALSE(values.assign({param}));
    EXPECT_FALSE(ring->symmetricProgram(spec, values)) << param;
  }
  // Pipelining slices are the pipeline's: the plan is still right, and still symmetric.
  CompileOptions options;
  options.algorithm = "ring";
  options.slices = 2;
  const CompiledPlan sliced = compiled(spec, options);
  EXPECT_EQ(sliced.plan.units, 12u);
  EXPECT_TRUE(sliced.plan.symmetry.has_value());
}

TEST(SymmetricCompile, AWrongRuleIsACompilerDefect) {
  AlgorithmInfo wrong = *findAlgorithm("ring");
  wrong.name = "ring-with-a-lost-op";
  auto rule = wrong.symmetricProgram;
  wrong.symmetricProgram = [rule](const CollectiveSpec &spec, const AlgorithmParams &params) {
    std::optional<SymmetricProgram> form = rule(spec, params);
    if (form) form->base.channels[0].ops.pop_back();  // the last block is never received
    return form;
  };
  ASSERT_FALSE(registerAlgorithm(std::move(wrong)));
  CompileOptions options;
  options.algorithm = "ring-with-a-lost-op";
  std::string error;
  EXPECT_TRUE(failed(compileCollective(summingSpec(CollectiveKind::AllGather, 4), options, error)));
  EXPECT_NE(error.find("compiler defect"), std::string::npos) << error;
  EXPECT_NE(error.find("ring-with-a-lost-op's allgather stated under rotation"),
            std::string::npos)
      << error;
}

}  // namespace
