// The algorithm registry as the one source of truth: a lit test per built-in algorithm, typed
// parameters read only as declared, one type per key, entry checks, and the same defaults at
// every entry point.
#include "ScheduleTestSupport.h"

#include "compiler/export/CompileParams.h"
#include "compiler/export/PlanCompiler.h"
#include "compiler/lowering/Algorithms.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace collplan;
using collplan::testing::IRFixture;

namespace {

using collplan::testing::summingSpec;

/// The printed module holding `algorithm`'s schedule of `spec` (named "k"), or nothing with
/// buildSchedule's `error`.
std::optional<std::string> scheduleText(const AlgorithmInfo &algorithm, const CollectiveSpec &spec,
                                        const AlgorithmParams &params, std::string &error) {
  IRFixture f;
  mlir::OpBuilder builder(&f.context());
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  if (mlir::failed(
          buildSchedule(builder, builder.getUnknownLoc(), spec, "k", algorithm, params, error)))
    return std::nullopt;
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  return out;
}

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Adding an algorithm is one lowering file, one lit test, one registration: the lit test is
/// tests/lit/lowering/<name>.mlir, runs coll-lower and lowers the algorithm.
TEST(AlgorithmRegistry, EveryBuiltinAlgorithmHasALitTest) {
  int builtins = 0;
  for (const AlgorithmInfo &a : algorithms()) {
    if (a.origin != kBuiltinOrigin) continue;
    ++builtins;
    const std::filesystem::path path =
        std::filesystem::path(COLLPLAN_SOURCE_DIR) / "tests/lit/lowering" / (a.name + ".mlir");
    ASSERT_TRUE(std::filesystem::exists(path))
        << "algorithm '" << a.name << "' is registered without a lit test: add " << path;
    const std::string text = readFile(path);
    EXPECT_NE(text.find("// RUN: coll-opt %t/"), std::string::npos) << path;
    EXPECT_NE(text.find("--coll-lower"), std::string::npos) << path << " does not run coll-lower";
    EXPECT_NE(text.find("algorithm \"" + a.name + "\""), std::string::npos)
        << path << " lowers no collective of algorithm '" << a.name << "'";
  }
  EXPECT_GE(builtins, 19);
}

TEST(AlgorithmRegistry, AKeyHasOneTypeInEveryAlgorithm) {
  std::map<std::string, std::pair<ParamType, std::string>> seen;
  for (const AlgorithmInfo &a : algorithms())
    for (const ParamSpec &spec : a.params) {
      auto [it, fresh] = seen.emplace(spec.name, std::make_pair(spec.type, a.name));
      EXPECT_TRUE(fresh || it->second.first == spec.type)
          << spec.name << ": " << a.name << " and " << it->second.second << " disagree on its type";
    }
  EXPECT_GE(seen.size(), 9u);
}

TEST(AlgorithmRegistry, EveryEntryIsConsistent) {
  for (const AlgorithmInfo &a : algorithms()) {
    std::deque<AlgorithmInfo> others;
    for (const AlgorithmInfo &b : algorithms())
      if (&b != &a) others.push_back(b);
    EXPECT_EQ(checkAlgorithmEntry(a, others), std::nullopt) << a.name;
    AlgorithmParams example(a);
    EXPECT_EQ(example.assign(a.example), std::nullopt) << a.name;
  }
}

/// A bad entry is refused with the reason.
TEST(AlgorithmRegistry, InconsistentEntriesAreRefused) {
  auto refusal = [](AlgorithmInfo a) { return checkAlgorithmEntry(a, algorithms()).value_or(""); };
  AlgorithmInfo base;
  base.name = "test-algorithm";
  base.kinds = {CollectiveKind::AllReduce};
  base.build = [](ScheduleBuilder &, const AlgorithmParams &) {};
  EXPECT_EQ(refusal(base), "");

  AlgorithmInfo taken = base;
  taken.name = "ring";
  EXPECT_EQ(refusal(taken), "the name is taken (by the algorithm from built-in)");
  EXPECT_EQ(registerAlgorithm(taken), "the name is taken (by the algorithm from built-in)");

  AlgorithmInfo axis = base;
  axis.tuning = {fixedAxis("channels", {"1", "2"}, 1)};
  EXPECT_EQ(refusal(axis), "tuning axis 'channels' names no parameter it declares");

  AlgorithmInfo slices = base;
  slices.params = {intParam("slices", 1, 1, 4, "mine")};
  EXPECT_EQ(refusal(slices), "parameter 'slices' is every algorithm's (coll-slice's): do not "
                             "declare it");

  AlgorithmInfo range = base;
  range.params = {intParam("depth", 0, 1, 4, "tree depth")};
  EXPECT_EQ(refusal(range), "parameter 'depth': its default: \"0\" is below the minimum of 1");

  AlgorithmInfo type = base;
  type.params = {boolParam("channels", false, "one channel or two")};
  EXPECT_EQ(refusal(type), "parameter 'channels' is true|false, but algorithm 'ring' declares it "
                           "integer: a key has one type");

  AlgorithmInfo twice = base;
  twice.params = {intParam("depth", 1, 1, 4, "a"), intParam("depth", 2, 1, 4, "b")};
  EXPECT_EQ(refusal(twice), "parameter 'depth' is declared twice");

  AlgorithmInfo example = base;
  example.example = {"depth=2"};
  EXPECT_EQ(refusal(example), "example depth=2: it declares no parameter depth");

  AlgorithmInfo stage = base;
  stage.params = {algorithmParam("inner", "zigzag", "a stage")};
  EXPECT_EQ(refusal(stage).find("parameter 'inner': its default: \"zigzag\" is not a registered "
                                "algorithm (known: "),
            0u);
}

/// A lowering reads only what its algorithm declares, as the declared type; anything else fails
/// loudly, naming the algorithm and the parameter.
TEST(AlgorithmParams, ReadingAnUndeclaredParameterFailsLoudly) {
  const AlgorithmParams ring(*findAlgorithm("ring"));
  EXPECT_EQ(ring.getInt("channels"), 1);
  EXPECT_FALSE(ring.getBool("bidirectional"));
  EXPECT_TRUE(ring.getIntList("order").empty());
  try {
    (void)ring.getInt("fanout");
    ADD_FAILURE() << "no exception";
  } catch (const UndeclaredParameterError &e) {
    EXPECT_STREQ(e.what(), "algorithm 'ring' reads parameter fanout, which it does not declare "
                           "(add a ParamSpec to its registry entry)");
  }
  EXPECT_THROW((void)ring.getBool("channels"), UndeclaredParameterError);
  EXPECT_THROW((void)AlgorithmParams().getInt("channels"), UndeclaredParameterError);

  // A lowering that reads an undeclared parameter: buildSchedule reports it as its error.
  AlgorithmInfo sloppy;
  sloppy.name = "reads-fanout";
  sloppy.kinds = {CollectiveKind::AllReduce};
  sloppy.build = [](ScheduleBuilder &, const AlgorithmParams &p) { (void)p.getInt("fanout"); };
  std::string error;
  EXPECT_EQ(scheduleText(sloppy, summingSpec(CollectiveKind::AllReduce, 4), AlgorithmParams(), error),
            std::nullopt);
  EXPECT_EQ(error, "algorithm 'reads-fanout' reads parameter fanout, which it does not declare "
                   "(add a ParamSpec to its registry entry)");
}

TEST(AlgorithmParams, ValuesAreParsedAndRangeCheckedByTheSpec) {
  AlgorithmParams ring(*findAlgorithm("ring"));
  EXPECT_EQ(ring.set("channels", "two"), "channels=two: \"two\" is not an integer");
  EXPECT_EQ(ring.set("channels", "0"), "channels=0: \"0\" is below the minimum of 1");
  EXPECT_EQ(ring.set("channels", "2000"), "channels=2000: \"2000\" is above the maximum of 1024");
  EXPECT_EQ(ring.set("bidirectional", "maybe"),
            "bidirectional=maybe: \"maybe\" is not true or false");
  EXPECT_EQ(ring.set("order", "0,-1"), "order=0,-1: in \"0,-1\": \"-1\" is below the minimum of 0");
  EXPECT_EQ(ring.set("fanout", "3"), "fanout=3: algorithm 'ring' does not take fanout (its "
                                     "parameters: channels, bidirectional, order)");
  EXPECT_EQ(ring.assign({"channels"}), "expected KEY=VALUE, got \"channels\"");
  EXPECT_EQ(ring.assign({"channels=2", "order=0,2,1,3"}), std::nullopt);
  EXPECT_EQ(ring.getInt("channels"), 2);
  EXPECT_EQ(ring.getIntList("order"), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_FALSE(ring.isDefault("channels"));
  EXPECT_TRUE(ring.isDefault("bidirectional"));
  AlgorithmParams hier(*findAlgorithm("hierarchical"));
  EXPECT_EQ(hier.set("inter", "zigzag").value_or("").find(
                "inter=zigzag: \"zigzag\" is not a registered algorithm (known: "),
            0u);
  EXPECT_EQ(hier.set("inter", "rabenseifner"), std::nullopt);
  EXPECT_EQ(splitParamList("'channels=2  order=0,2,1,3'"),
            (std::vector<std::string>{"channels=2", "order=0,2,1,3"}));
}

/// The plan's `params` record: the values that differ from the spec's defaults.
TEST(AlgorithmParams, PlanRecordListsWhatDiffersFromTheDefaults) {
  AlgorithmParams hier(*findAlgorithm("hierarchical"));
  EXPECT_EQ(paramsRecord(hier, 1).dump(), "{}");
  ASSERT_EQ(hier.assign({"ranks-per-node=2", "inter=rabenseifner"}), std::nullopt);
  EXPECT_EQ(paramsRecord(hier, 2).dump(),
            R"({"inter":"rabenseifner","pipeline_slices":2,"ranks_per_node":2})");
}

/// The printed schedule `pipeline` (a textual pass pipeline) makes of `text`.
std::string lowerText(const std::string &text, const std::string &pipeline) {
  IRFixture f;
  auto module = f.parse(text);
  mlir::PassManager pm(&f.context(), mlir::ModuleOp::getOperationName());
  EXPECT_TRUE(mlir::succeeded(mlir::parsePassPipeline(pipeline, pm)));
  EXPECT_TRUE(mlir::succeeded(pm.run(*module))) << pipeline;
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  return out;
}

/// KangaRing's allgather on 6 ranks with `params`, printed.
std::string buildText(const AlgorithmParams &params) {
  std::string error;
  std::optional<std::string> text = scheduleText(
      *findAlgorithm("kangaring"), summingSpec(CollectiveKind::AllGather, 6), params, error);
  EXPECT_TRUE(text) << error;
  return text.value_or("");
}

/// ranks-per-device once defaulted to 2 in --coll-lower-kangaring and to 1 in --coll-lower and
/// plan-compile: the same IR lowered differently by entry point. Defaults now come from the
/// spec alone, so every entry point lowers it the same way.
TEST(AlgorithmParams, EveryEntryPointLowersWithTheSpecDefaults) {
  const std::string text = "coll.collective @k allgather ranks 6 algorithm \"kangaring\"\n";
  const std::string pass = lowerText(text, "coll-lower");
  const std::string explicitTwo =
      lowerText(text, "coll-lower{params=ranks-per-device=2}");
  EXPECT_NE(pass.find("coll.schedule @k allgather ranks 6 slices 2"), std::string::npos) << pass;
  EXPECT_EQ(pass, explicitTwo);
  EXPECT_EQ(buildText(AlgorithmParams()), buildText(AlgorithmParams(*findAlgorithm("kangaring"))));
  EXPECT_EQ(buildText(AlgorithmParams()), pass);
  // plan-compile, plan-tune, plan-view / plan-bench --param and the Python module compile
  // through compileCollective: it takes the same defaults (1 would be refused: odd devices).
  const CollectiveSpec spec = summingSpec(CollectiveKind::AllGather, 6);
  CompileOptions options;
  options.algorithm = "kangaring";
  std::string error;
  auto plan = compileCollective(spec, options, error);
  ASSERT_TRUE(mlir::succeeded(plan)) << error;
  EXPECT_EQ(plan->plan.params.count("ranks_per_device"), 0u);
  options.params = {"ranks-per-device=1"};
  EXPECT_TRUE(mlir::failed(compileCollective(spec, options, error)));
  EXPECT_NE(error.find("needs an even number of ranks per device (got 1)"), std::string::npos)
      << error;
}

/// The tools' keys are the registry's: every declared key, plus slices.
TEST(CompileParams, KeysFlagsAndErrorsComeFromTheRegistry) {
  std::set<std::string> keys;
  for (const CompileParam &p : compileParams()) keys.insert(p.key());
  for (const AlgorithmInfo &a : algorithms())
    for (const ParamSpec &spec : a.params) EXPECT_TRUE(keys.count(spec.name)) << spec.name;
  EXPECT_TRUE(keys.count("slices"));
  const AlgorithmInfo *ring = findAlgorithm("ring");
  CompileOptions options;
  EXPECT_EQ(applyCompileParam("colour=red", ring, options).value_or("").find(
                "unknown key \"colour\" (valid keys: slices, "),
            0u);
  EXPECT_EQ(applyCompileParam("fanout=3", ring, options),
            "algorithm 'ring' does not take fanout (it takes: slices, channels, bidirectional, "
            "order)");
  EXPECT_EQ(applyCompileParam("channels=0", ring, options), "\"0\" is below the minimum of 1");
  EXPECT_EQ(applyCompileParam("slices=0", ring, options), "\"0\" is below the minimum of 1");
  EXPECT_EQ(applyCompileParam("channels", ring, options).value_or("").find("expected KEY=VALUE"),
            0u);
  EXPECT_EQ(applyCompileParam("slices=2", ring, options), std::nullopt);
  EXPECT_EQ(applyCompileParam("channels=2", nullptr, options), std::nullopt);
  EXPECT_EQ(options.slices, 2);
  EXPECT_EQ(options.params, (std::vector<std::string>{"channels=2"}));
  const std::string listing = algorithmListing();
  for (const AlgorithmInfo &a : algorithms())
    EXPECT_NE(listing.find(a.name + "\t"), std::string::npos) << a.name;
  EXPECT_NE(listing.find("  channels=1"), std::string::npos);
}

}  // namespace
