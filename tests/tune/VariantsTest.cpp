// Variant enumeration follows the registry: every algorithm's tuning axes, times slices, only
// with parameters its lowering reads.
#include "compiler/export/CompileParams.h"
#include "tuner/Variants.h"

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
      EXPECT_EQ(v.params.channels, 2);
      EXPECT_TRUE(v.params.bidirectional);
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

TEST(Variants, DeviceGroupingsDivideTheRanks) {
  std::set<int> groupings;
  for (const Variant &v : enumerateVariants(allreduce(6), nullptr, {"mesh-two-step"}, false))
    groupings.insert(v.params.ranksPerDevice);
  EXPECT_EQ(groupings, (std::set<int>{1, 2}));
}

/// Every tuned parameter is one its algorithm reads: no variant is a duplicate by construction.
TEST(Variants, EveryAxisIsAParameterTheAlgorithmTakes) {
  for (const AlgorithmInfo &a : algorithms()) {
    const std::vector<std::string> taken = compileParamsTakenBy(a);
    for (const TuningAxis &axis : a.tuning)
      EXPECT_NE(std::find(taken.begin(), taken.end(), axis.key), taken.end())
          << a.name << " tunes " << axis.key << " but does not take it";
    for (const std::string &key : a.params)
      EXPECT_NE(findCompileParam(key), nullptr) << a.name << ": unknown parameter " << key;
  }
}

}  // namespace
