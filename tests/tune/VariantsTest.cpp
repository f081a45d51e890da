// Variant enumeration follows the registry: every algorithm's tuning axes, times slices, only
// with parameters its lowering reads.
#include "tuner/Variants.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanJson.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace collplan;
using namespace collplan::tune;

namespace {

CollectiveSpec allreduce(int ranks) {
  CollectiveSpec spec;
  spec.kind = CollectiveKind::AllReduce;
  spec.ranks = ranks;
  spec.op = ReduceOp::Sum;
  return spec;
}

std::set<std::string> labels(const std::vector<Variant> &variants) {
  std::set<std::string> out;
  for (const Variant &v : variants) out.insert(v.label);
  return out;
}

TEST(Variants, RingVariesChannelsDirectionAndSlices) {
  const std::vector<Variant> ring = enumerateVariants(allreduce(4), nullptr, {"ring"}, false);
  EXPECT_EQ(ring.size(), 2u * 2u * 3u);
  const std::set<std::string> l = labels(ring);
  for (const char *expected : {"ring", "ring ch2", "ring bidir", "ring ch2 bidir s4", "ring s2"})
    EXPECT_TRUE(l.count(expected)) << expected;
  for (const Variant &v : ring) {
    if (v.label == "ring ch2 bidir s4") {
      EXPECT_EQ(v.params.getInt("channels"), 2);
      EXPECT_TRUE(v.params.getBool("bidirectional"));
      EXPECT_EQ(v.slices, 4);
      EXPECT_EQ(v.paramsJson().dump(), R"({"bidirectional":"true","channels":"2","slices":"4"})");
    }
  }
}

TEST(Variants, QuickShortensAxesAndBarriersAreNotSliced) {
  EXPECT_EQ(enumerateVariants(allreduce(4), nullptr, {"pipelined-tree"}, true).size(), 2u);
  EXPECT_EQ(enumerateVariants(allreduce(4), nullptr, {"pipelined-tree"}, false).size(), 2u * 3u * 3u);
  CollectiveSpec barrier;
  barrier.kind = CollectiveKind::Barrier;
  barrier.ranks = 4;
  const std::vector<Variant> b = enumerateVariants(barrier, nullptr, {}, false);
  EXPECT_EQ(b.size(), 2u);  // dissemination and pairwise-barrier, once each
  for (const Variant &v : b) EXPECT_EQ(v.slices, 1) << v.label;
}

TEST(Variants, PastThePositionsLimitHierarchicalTriesTheIntraAlgorithmThatComposes) {
  // 4096 ranks compile as stages of their own sizes, whose intra-node algorithm must keep each
  // block's partial results in that block's units: ring does, the default mesh-two-step not.
  EXPECT_EQ(labels(enumerateVariants(allreduce(4096), nullptr, {"hierarchical"}, true)),
            (std::set<std::string>{"hierarchical intra=ring", "hierarchical intra=ring s2",
                                    "hierarchical intra=ring inter=recursive-doubling",
                                    "hierarchical intra=ring inter=recursive-doubling s2"}));
  EXPECT_EQ(labels(enumerateVariants(allreduce(64), nullptr, {"hierarchical"}, true)),
            (std::set<std::string>{"hierarchical", "hierarchical s2",
                                   "hierarchical inter=recursive-doubling",
                                   "hierarchical inter=recursive-doubling s2"}));
}

TEST(Variants, DeviceGroupingsDivideTheRanks) {
  std::set<int> groupings;
  for (const Variant &v : enumerateVariants(allreduce(6), nullptr, {"mesh-two-step"}, false))
    groupings.insert(v.params.getInt("ranks-per-device"));
  EXPECT_EQ(groupings, (std::set<int>{1, 2}));
}

/// Every tuned parameter is one its algorithm declares, and every value an axis gives is one
/// its spec accepts: no variant is a duplicate by construction.
TEST(Variants, EveryAxisIsAParameterTheAlgorithmTakes) {
  for (const AlgorithmInfo &a : algorithms())
    for (const TuningAxis &axis : a.tuning) {
      const ParamSpec *spec = a.findParam(axis.key);
      ASSERT_NE(spec, nullptr) << a.name << " tunes " << axis.key << " but does not declare it";
      for (bool quick : {false, true})
        for (const std::string &value : axis.values(allreduce(8), quick)) {
          ParamValue parsed;
          EXPECT_EQ(parseParamValue(*spec, value, parsed), std::nullopt)
              << a.name << " tunes " << axis.key << "=" << value;
        }
    }
}

/// A label names the settings that differ from their spec's default, as the spec labels them;
/// the first value of each axis is the default, so the plain name is the default variant.
TEST(Variants, LabelsNameTheSettingsThatDifferFromTheDefaults) {
  for (const Variant &v : enumerateVariants(allreduce(8), nullptr, {}, false)) {
    const AlgorithmInfo *a = findAlgorithm(v.algorithm);
    ASSERT_NE(a, nullptr);
    bool defaults = v.slices == 1;
    for (const ParamSpec &spec : a->params) defaults = defaults && v.params.isDefault(spec.name);
    EXPECT_EQ(defaults, v.label == v.algorithm) << v.label;
  }
  const std::set<std::string> kanga =
      labels(enumerateVariants(allreduce(8), nullptr, {"kangaring"}, false));
  EXPECT_EQ(kanga, (std::set<std::string>{"kangaring", "kangaring s2", "kangaring s4",
                                          "kangaring rpd4", "kangaring rpd4 s2",
                                          "kangaring rpd4 s4"}));
  const std::set<std::string> hier =
      labels(enumerateVariants(allreduce(8), nullptr, {"hierarchical"}, true));
  EXPECT_TRUE(hier.count("hierarchical inter=recursive-doubling s2")) << *hier.begin();
}

}  // namespace

// The runtime's own generator of an algorithm's name is measured beside the compiled default
// variant, costed as its twin; other settings of the algorithm get no runtime twin.
TEST(Variants, TheRuntimesOwnPlanComesBesideTheDefaultVariant) {
  const CollectiveSpec spec = allreduce(4);
  const VariantSet set = compileVariants(spec, enumerateVariants(spec, nullptr, {"two-shot", "ring"}, true));
  const auto find = [&](const std::string &label) -> const CompiledVariant * {
    for (const CompiledVariant &cv : set.compiled)
      if (cv.variant.label == label) return &cv;
    return nullptr;
  };
  const CompiledVariant *compiled = find("two-shot");
  const CompiledVariant *runtime = find("two-shot (runtime)");
  ASSERT_NE(compiled, nullptr);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->variant.origin, kRuntimeOrigin);
  EXPECT_EQ(runtime->variant.algorithm, "two-shot");
  EXPECT_EQ(runtime->alphaRounds, compiled->alphaRounds);
  EXPECT_EQ(runtime->beta, compiled->beta);
  const Plan expected = findBuiltInPlan("two-shot", CollectiveKind::AllReduce)
                            ->make(CollectiveKind::AllReduce, 4, ReduceOp::Sum, 0, -1);
  EXPECT_EQ(planToJson(runtime->plan), planToJson(expected));
  EXPECT_EQ(planToJson(runtime->plan)["algorithm"], "two-shot");
  for (const CompiledVariant &cv : set.compiled)
    if (cv.variant.origin == kRuntimeOrigin)
      EXPECT_TRUE(cv.variant.label == "two-shot (runtime)" || cv.variant.label == "ring (runtime)")
          << cv.variant.label << ": only default variants have a runtime twin";
}

// A runtime plan identical to one already kept is a duplicate, named after the first.
TEST(Variants, ARuntimePlanLikeAKeptOneIsADuplicate) {
  const CollectiveSpec spec = allreduce(4);
  std::vector<Variant> ring = enumerateVariants(spec, nullptr, {"ring"}, true);
  ring.erase(std::remove_if(ring.begin(), ring.end(), [](const Variant &v) { return v.label != "ring"; }),
             ring.end());
  ASSERT_EQ(ring.size(), 1u);
  ring.push_back(ring.front());  // the default variant twice: its runtime twin comes twice too
  const VariantSet set = compileVariants(spec, ring);
  ASSERT_EQ(set.compiled.size(), 2u);
  EXPECT_EQ(set.compiled[0].variant.label, "ring");
  EXPECT_EQ(set.compiled[1].variant.label, "ring (runtime)");
  ASSERT_EQ(set.notes.size(), 2u);
  EXPECT_EQ(set.notes[1].label, "ring (runtime)");
  EXPECT_EQ(set.notes[1].status, VariantStatus::Duplicate);
  EXPECT_EQ(set.notes[1].reason, "same plan as ring (runtime)");
}
