// The example templates of plans/examples/templates, instantiated and proven for every rank
// count 2..64 (every grid shape), and the ring template against the C++ ring lowering.
#include "ScheduleTestSupport.h"

#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/export/PlanCompiler.h"
#include "compiler/template/Instantiate.h"
#include "compiler/template/TemplateAlgorithms.h"
#include "runtime/plan/PlanJson.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

using namespace collplan;
using collplan::testing::IRFixture;

namespace {

std::string readExample(const std::string &name) {
  const std::string path = std::string(COLLPLAN_SOURCE_DIR) + "/plans/examples/templates/" + name;
  std::ifstream file(path);
  EXPECT_TRUE(file) << "cannot read " << path;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// Instantiates `tmpl` for `ranks` ranks (sum) with `given` and proves the schedule: an empty
/// string on success, else what failed and the diagnostics.
std::string instantiateAndProve(IRFixture &ir, mlir::coll::TemplateOp tmpl, int ranks,
                                const std::map<std::string, int64_t> &given) {
  ir.clearDiagnostics();
  CollectiveSpec spec;
  spec.kind = CollectiveKind(tmpl.getKind());
  spec.ranks = ranks;
  spec.chunks = ranks;
  if (needsReduceOp(spec.kind)) spec.op = ReduceOp::Sum;
  mlir::OpBuilder builder(tmpl);
  auto schedule = instantiateTemplate(builder, tmpl, spec, given, nullptr, "instance");
  std::string failures;
  if (succeeded(schedule) && failed(verifySchedule(*schedule, VerifyOptions{})))
    failures = "verification failed";
  if (failed(schedule)) failures = "instantiation failed";
  for (const std::string &d : ir.diagnostics()) failures += "\n  " + d;
  if (succeeded(schedule)) (*schedule)->erase();
  return failures;
}

mlir::coll::TemplateOp onlyTemplate(mlir::ModuleOp module) {
  auto templates = module.getOps<mlir::coll::TemplateOp>();
  EXPECT_EQ(std::distance(templates.begin(), templates.end()), 1);
  return *templates.begin();
}

struct Example {
  const char *file;
  const char *groupParam;  ///< a parameter every divisor of N is tried for, or null
};

class ExampleTemplate : public ::testing::TestWithParam<Example> {};

TEST_P(ExampleTemplate, ProvenForEveryRankCountUpTo64) {
  IRFixture ir;
  auto module = ir.parse(readExample(GetParam().file));
  ASSERT_TRUE(module);
  mlir::coll::TemplateOp tmpl = onlyTemplate(*module);
  int instances = 0;
  for (int ranks = 2; ranks <= 64; ++ranks) {
    if (!GetParam().groupParam) {
      EXPECT_EQ(instantiateAndProve(ir, tmpl, ranks, {}), "") << "ranks=" << ranks;
      ++instances;
      continue;
    }
    for (int group = 1; group <= ranks; ++group)
      if (ranks % group == 0) {
        EXPECT_EQ(instantiateAndProve(ir, tmpl, ranks, {{GetParam().groupParam, group}}), "")
            << "ranks=" << ranks << " " << GetParam().groupParam << "=" << group;
        ++instances;
      }
  }
  EXPECT_GE(instances, 63);  // the sweep ran
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ExampleTemplate,
    ::testing::Values(Example{"ring-allreduce.mlir", nullptr},
                      Example{"recursive-doubling-allreduce.mlir", nullptr},
                      Example{"pairwise-alltoall.mlir", nullptr},
                      Example{"grid-allreduce.mlir", "rows"},
                      Example{"hierarchical-allreduce.mlir", "ranks-per-node"}),
    [](const ::testing::TestParamInfo<Example> &info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

/// `module` printed after `pipeline`, with what only names the source taken out: the schedule's
/// name and algorithm, the instance attribute, and the `step` attributes (the C++ lowering
/// numbers rounds; the compile pipeline assigns them again).
std::string normalised(mlir::ModuleOp module, const std::string &pipeline) {
  mlir::PassManager pm(module->getContext());
  std::string error;
  llvm::raw_string_ostream errors(error);
  EXPECT_TRUE(mlir::succeeded(mlir::parsePassPipeline(pipeline, pm, errors))) << error;
  EXPECT_TRUE(mlir::succeeded(pm.run(module))) << pipeline;
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  text = std::regex_replace(text, std::regex(" \\{step = [0-9]+ : i64\\}"), "");
  text = std::regex_replace(text, std::regex(" attributes \\{coll.instance = \"[^\"]*\"\\}"), "");
  text = std::regex_replace(text, std::regex("@[a-z_]+ allreduce"), "@s allreduce");
  return std::regex_replace(text, std::regex("algorithm \"[a-z_]+\""), "algorithm \"a\"");
}

/// The ring template says what the ring lowering does: after the compiler's fusion of each
/// reduce with the copy that sends it on, the two schedules are the same op for op.
TEST(RingTemplate, IsTheRingLoweringForEveryRankCountUpTo33) {
  IRFixture ir;
  const std::string ring = readExample("ring-allreduce.mlir");
  for (int ranks = 2; ranks <= 33; ++ranks) {
    auto lowered = ir.parse("coll.collective @c allreduce ranks " + std::to_string(ranks) +
                            " op sum algorithm \"ring\"");
    auto instantiated = ir.parse(ring);
    ASSERT_TRUE(lowered && instantiated);
    EXPECT_EQ(normalised(*instantiated, "coll-instantiate{ranks=" + std::to_string(ranks) +
                                            "},coll-fuse-reduce-copy"),
              normalised(*lowered, "coll-lower,coll-fuse-reduce-copy"))
        << "ranks=" << ranks;
  }
}

/// The plan `algorithm` compiles to for an allreduce on `ranks` ranks, without its name.
nlohmann::json compiledAllreduce(const std::string &algorithm, int ranks) {
  CollectiveSpec spec;
  spec.ranks = ranks;
  spec.op = ReduceOp::Sum;
  CompileOptions options;
  options.algorithm = algorithm;
  std::string error;
  auto compiled = compileCollective(spec, options, error);
  EXPECT_TRUE(mlir::succeeded(compiled)) << algorithm << " on " << ranks << ": " << error;
  if (mlir::failed(compiled)) return {};
  nlohmann::json plan = planToJson(compiled->plan);
  plan.erase("algorithm");
  return plan;
}

/// Registered as an algorithm, the ring template compiles (through the same pipeline) to the
/// plan of the ring lowering.
TEST(RingTemplate, CompilesToTheRingLoweringsPlanForEveryRankCountUpTo33) {
  const std::vector<std::string> names = registerTemplateFile(
      std::string(COLLPLAN_SOURCE_DIR) + "/plans/examples/templates/ring-allreduce.mlir");
  ASSERT_EQ(names, std::vector<std::string>{"ring_allreduce"});
  const AlgorithmInfo *entry = findAlgorithm("ring_allreduce");
  ASSERT_TRUE(entry);
  EXPECT_NE(entry->origin.find("ring-allreduce.mlir"), std::string::npos) << entry->origin;
  for (int ranks = 2; ranks <= 33; ++ranks)
    EXPECT_EQ(compiledAllreduce("ring_allreduce", ranks), compiledAllreduce("ring", ranks))
        << "ranks=" << ranks;
}

/// A template that does not apply to a collective says why, as the registry's check.
TEST(TemplateAlgorithm, NotApplicableWithTheTemplatesReason) {
  registerTemplateFile(std::string(COLLPLAN_SOURCE_DIR) +
                       "/plans/examples/templates/grid-allreduce.mlir");
  const AlgorithmInfo *grid = findAlgorithm("grid_allreduce");
  ASSERT_TRUE(grid);
  CollectiveSpec spec;
  spec.ranks = 6;
  spec.op = ReduceOp::Sum;
  AlgorithmParams params(*grid);
  ASSERT_EQ(params.set("rows", "4"), std::nullopt);
  const std::optional<std::string> why = checkAlgorithm(spec, *grid, params);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("requires: rows must divide the rank count (ranks=6, rows=4)"),
            std::string::npos)
      << *why;
  EXPECT_NE(why->find("grid-allreduce.mlir:9:11"), std::string::npos) << *why;
  ASSERT_EQ(params.set("rows", "3"), std::nullopt);
  EXPECT_EQ(checkAlgorithm(spec, *grid, params), std::nullopt);
}

/// A file that is not one of templates, or cannot be read, is refused naming it.
TEST(TemplateAlgorithm, FilesWithoutTemplatesAreRefused) {
  const std::string schedules = std::string(COLLPLAN_SOURCE_DIR) + "/plans/examples/schedules.mlir";
  try {
    registerTemplateFile(schedules);
    FAIL() << "a file of schedules was registered";
  } catch (const std::invalid_argument &e) {
    EXPECT_EQ(std::string(e.what()), schedules + ": holds no coll.template (a schedule template)");
  }
  EXPECT_THROW(registerTemplateFile("/nonexistent/templates.mlir"), std::invalid_argument);
}

}  // namespace
