// The default rules: the shipped plans/defaults.json, lookups and tables, and every bad document.
#include "runtime/plan/DefaultRules.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace collplan;

namespace {

TEST(DefaultRules, ShippedRulesServeEveryCollective) {
  const DefaultRules &rules = defaultRules();
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 0).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 32767).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 32768).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 2, 32768).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 2, 65536).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 262143).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 262144).name, "two-shot");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 2, 1 << 30).name, "ring");  // min_ranks 3
  // Across machines the ring replaces two-shot from 32 KiB (min_nodes 2); two nodes of one
  // rank each have no rule of their own (min_ranks 3).
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 262144, 2).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 32767, 2).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 4, 262144, 1).name, "two-shot");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllReduce, 2, 32768, 2).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllToAll, 4, 8).name, "direct");
  // Recursive doubling gathers small messages at any rank count and large ones on powers of
  // two; three ranks fold, and the ring takes large messages there.
  EXPECT_EQ(rules.planFor(CollectiveKind::AllGather, 3, 4096).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllGather, 3, 1 << 24).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllGather, 4, 1 << 24).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllGather, 8, 1 << 24).name, "recursive-doubling");
  EXPECT_EQ(rules.planFor(CollectiveKind::ReduceScatter, 8, 4096).name, "recursive-halving");
  EXPECT_EQ(rules.planFor(CollectiveKind::ReduceScatter, 8, 1 << 20).name, "ring");
  // One machine broadcasts flat up to 8 ranks; more ranks use the tree, and so do large
  // messages across machines.
  EXPECT_EQ(rules.planFor(CollectiveKind::Broadcast, 8, 1 << 20).name, "flat");
  EXPECT_EQ(rules.planFor(CollectiveKind::Broadcast, 9, 8).name, "binomial-tree");
  EXPECT_EQ(rules.planFor(CollectiveKind::Broadcast, 4, 8, 2).name, "flat");
  EXPECT_EQ(rules.planFor(CollectiveKind::Broadcast, 4, 1 << 20, 2).name, "binomial-tree");
  EXPECT_EQ(rules.planFor(CollectiveKind::AllGather, 4, 1 << 20, 2).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::ReduceScatter, 4, 32768, 2).name, "ring");
  EXPECT_EQ(rules.planFor(CollectiveKind::Barrier, 8, 0).name, "dissemination");
  // The runtime's copy is the repository's file.
  std::ifstream file(COLLPLAN_SOURCE_DIR "/plans/defaults.json");
  ASSERT_TRUE(file) << "plans/defaults.json";
  const DefaultRules fromFile = DefaultRules::parse(nlohmann::json::parse(file), "defaults.json");
  ASSERT_EQ(fromFile.rules().size(), rules.rules().size());
  for (size_t i = 0; i < rules.rules().size(); ++i) {
    EXPECT_EQ(fromFile.rules()[i].plan, rules.rules()[i].plan) << i;
    EXPECT_EQ(fromFile.rules()[i].minBytes, rules.rules()[i].minBytes) << i;
    EXPECT_EQ(fromFile.rules()[i].minNodes, rules.rules()[i].minNodes) << i;
    EXPECT_EQ(fromFile.rules()[i].powerOfTwoRanks, rules.rules()[i].powerOfTwoRanks) << i;
  }
}

TEST(DefaultRules, TablesAreValidBucketsOfBuiltInPlans) {
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    const CollectiveKind kind = CollectiveKind(k);
    std::optional<ReduceOp> op;
    if (needsReduceOp(kind)) op = ReduceOp::Max;
    for (int ranks : {1, 2, 5}) {
      const BucketTable table = defaultRules().table(kind, DType::F32, op, ranks, ranks - 1);
      ASSERT_FALSE(table.buckets.empty());
      EXPECT_EQ(table.buckets.front().minBytes, 0u);
      EXPECT_EQ(table.buckets.back().maxBytes, UINT64_MAX);
      for (size_t b = 0; b < table.buckets.size(); ++b) {
        const Plan &plan = table.buckets[b].plan;
        EXPECT_NO_THROW(validatePlan(plan, "default table")) << toString(kind) << " N=" << ranks;
        EXPECT_EQ(plan.ranks, ranks);
        if (needsRoot(kind)) EXPECT_EQ(plan.root, ranks - 1);
        if (b > 0) EXPECT_EQ(table.buckets[b].minBytes, table.buckets[b - 1].maxBytes + 1);
        EXPECT_EQ(&table.lookup(table.buckets[b].minBytes), &table.buckets[b]);
      }
    }
  }
  // Two ranks: the rules with min_ranks 3 do not apply, so allreduce is recursive doubling up
  // to 64 KiB and ring above.
  const BucketTable two =
      defaultRules().table(CollectiveKind::AllReduce, DType::F32, ReduceOp::Sum, 2, 0);
  ASSERT_EQ(two.buckets.size(), 2u);
  EXPECT_EQ(two.buckets[0].plan.algorithm, "recursive-doubling");
  EXPECT_EQ(two.buckets[0].maxBytes, 65535u);
  EXPECT_EQ(two.buckets[1].plan.algorithm, "ring");
  // Four ranks on two nodes: two-shot's bucket is gone, the ring serves everything from 32 KiB.
  const BucketTable nodes = defaultRules().table(CollectiveKind::AllReduce, DType::F32,
                                                 ReduceOp::Sum, 4, 0, -1, /*nodes=*/2);
  ASSERT_EQ(nodes.buckets.size(), 2u);
  EXPECT_EQ(nodes.buckets[0].plan.algorithm, "recursive-doubling");
  EXPECT_EQ(nodes.buckets[1].minBytes, 32768u);
  EXPECT_EQ(nodes.buckets[1].plan.algorithm, "ring");
  EXPECT_EQ(nodes.buckets[1].maxBytes, UINT64_MAX);
}

/// The error for `doc` (a rules document with `rule` as the allreduce rule), or "".
std::string errorFor(const std::string &text) {
  try {
    DefaultRules::parse(nlohmann::json::parse(text), "d.json");
  } catch (const PlanError &e) {
    return e.what();
  }
  return "";
}

std::string withRules(const std::string &allreduce) {
  std::string rules = allreduce;
  for (const char *k : {"allgather\", \"plan\": \"ring", "reduce_scatter\", \"plan\": \"ring",
                        "alltoall\", \"plan\": \"direct", "broadcast\", \"plan\": \"binomial-tree",
                        "reduce\", \"plan\": \"binomial-tree", "gather\", \"plan\": \"flat",
                        "scatter\", \"plan\": \"flat", "barrier\", \"plan\": \"dissemination"})
    rules += std::string(rules.empty() ? "" : ", ") + "{\"collective\": \"" + k + "\"}";
  return "{\"format\": \"collplan-defaults\", \"version\": 1, \"rules\": [" + rules + "]}";
}

TEST(DefaultRules, BadDocumentsAreClearErrors) {
  EXPECT_EQ(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\"}")), "");
  // A built-in plan of another collective (direct serves all-to-all) is refused, and so is a
  // name no built-in plan has.
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"direct\"}"))
                .find("rules[0].plan: \"direct\" is not a built-in plan for allreduce "
                      "(expected one of: ring, two-shot, recursive-doubling)"),
            std::string::npos);
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"binomial\"}"))
                .find("rules[0].plan: \"binomial\" is not a built-in plan for allreduce"),
            std::string::npos);
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduse\", \"plan\": \"ring\"}"))
                .find("rules[0].collective: unknown collective \"allreduse\""),
            std::string::npos);
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"two-shot\", "
                               "\"min_bytes\": 4096}"))
                .find("no rule serves every allreduce call"),
            std::string::npos);
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", \"min_ranks\": 0}"))
                .find("rules[0].min_ranks"),
            std::string::npos);
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", \"min_nodes\": 0}"))
                .find("rules[0].min_nodes"),
            std::string::npos);
  // A rule for several nodes alone serves no call of one machine.
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", \"min_nodes\": 2}"))
                .find("no rule serves every allreduce call: give one without min_bytes, min_ranks, "
                      "min_nodes and power_of_two_ranks"),
            std::string::npos);
  // A rule for powers of two alone serves no call of three ranks.
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", "
                               "\"power_of_two_ranks\": true}"))
                .find("no rule serves every allreduce call"),
            std::string::npos);
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", "
                               "\"power_of_two_ranks\": 1}"))
                .find("rules[0].power_of_two_ranks"),
            std::string::npos);
  EXPECT_EQ(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", "
                               "\"power_of_two_ranks\": false}")),
            "");
  EXPECT_NE(errorFor(withRules("{\"collective\": \"allreduce\", \"plan\": \"ring\", \"size\": 1}"))
                .find("rules[0].size: unknown field"),
            std::string::npos);
  EXPECT_NE(errorFor("{\"format\": \"collplan-plan\", \"version\": 1, \"rules\": []}")
                .find("format: expected \"collplan-defaults\""),
            std::string::npos);
  EXPECT_NE(errorFor("{\"format\": \"collplan-defaults\", \"version\": 2, \"rules\": []}")
                .find("version: unsupported version 2"),
            std::string::npos);
}

}  // namespace
