// MSCCL++ execution plans: built-in plans round trip through export and import; bad input fails.
#include "runtime/interop/MscclppJson.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/plan/Transfers.h"

#include "InteropTestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace collplan {
namespace {

using interoptest::messagesPerPair;
using interoptest::readData;

/// The export refuses these for reasons of the executor's limits, not of the mapping.
bool isLimitRefusal(const std::string &what) {
  return what.find("(MAX_OPERATION)") != std::string::npos ||
         what.find("(MAX_CHANNEL)") != std::string::npos;
}

TEST(MscclppJson, BuiltInPlansRoundTrip) {
  const CollectiveKind kinds[] = {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                                  CollectiveKind::ReduceScatter, CollectiveKind::AllToAll};
  int roundTrips = 0, limited = 0;
  for (const BuiltInPlan &gen : builtInPlans())
    for (CollectiveKind kind : kinds) {
      if (!gen.serves(kind)) continue;
      for (int n = 2; n <= 8; ++n) {
        SCOPED_TRACE(std::string(gen.name) + " " + std::string(toString(kind)) +
                     " N=" + std::to_string(n));
        const Plan plan = gen.make(kind, n, ReduceOp::Sum, 0, -1);
        std::string json;
        try {
          json = planToMscclppJson(plan);
        } catch (const std::invalid_argument &e) {
          EXPECT_TRUE(isLimitRefusal(e.what())) << e.what();
          ++limited;
          continue;
        }
        const Plan back = mscclppJsonToPlan(json, "roundtrip.json");
        EXPECT_TRUE(verifyPlan(back).ok()) << verifyPlan(back).describe();
        EXPECT_EQ(back.collective, plan.collective);
        EXPECT_EQ(back.ranks, plan.ranks);
        EXPECT_EQ(back.units, plan.units);
        EXPECT_EQ(messagesPerPair(back), messagesPerPair(plan));
        ++roundTrips;
      }
    }
  EXPECT_GE(roundTrips, 40) << limited << " refused for the executor's limits";
}

TEST(MscclppJson, ExportWritesTheExecutorsFields) {
  const nlohmann::json doc =
      nlohmann::json::parse(planToMscclppJson(ringAllReducePlan(2, ReduceOp::Sum), {"ring"}));
  EXPECT_EQ(doc["name"], "ring");
  EXPECT_EQ(doc["collective"], "allreduce");
  EXPECT_EQ(doc["protocol"], "Simple");
  EXPECT_EQ(doc["inplace"], false);
  ASSERT_EQ(doc["gpus"].size(), 2u);
  const nlohmann::json &gpu = doc["gpus"][1];
  EXPECT_EQ(gpu["id"], 1);
  EXPECT_EQ(gpu["channels"][0]["connected_to"], nlohmann::json::array({0}));
  EXPECT_EQ(gpu["remote_buffers"][0]["rank"], 0);
  EXPECT_EQ(gpu["remote_buffers"][0]["type"], "s");
  const nlohmann::json &ops = gpu["threadblocks"][0]["ops"];
  ASSERT_GE(ops.size(), 3u);
  EXPECT_EQ(ops[0]["name"], "put");
  EXPECT_EQ(ops[1]["name"], "nop");
  EXPECT_EQ(ops[2]["name"], "signal");
}

TEST(MscclppJson, ExportRefusesWhatTheFormatCannotSay) {
  try {
    planToMscclppJson(binomialBroadcastPlan(4, 0));
    FAIL() << "exported a broadcast";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(),
                 "MSCCL++ export: the executor has no collective for broadcast (its plans have "
                 "no root)");
  }
  Plan plan = ringAllGatherPlan(2);
  plan.inplaceSafe = false;
  MscclppExportOptions options;
  options.inplace = true;
  EXPECT_THROW(planToMscclppJson(plan, options), std::invalid_argument);
}

std::string importError(const std::string &json) {
  try {
    mscclppJsonToPlan(json, "bad.json");
  } catch (const PlanError &e) {
    return e.what();
  }
  return "imported";
}

/// A valid two-rank ring all-gather, exported, with `edit` applied to its document.
std::string edited(const std::function<void(nlohmann::json &)> &edit) {
  nlohmann::json doc = nlohmann::json::parse(planToMscclppJson(ringAllGatherPlan(2)));
  edit(doc);
  return doc.dump();
}

TEST(MscclppJson, ImportRejectsMalformedPlans) {
  EXPECT_EQ(importError(edited([](nlohmann::json &) {})), "imported");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d.erase("gpus"); })),
            "bad.json: gpus: missing required field");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["collective"] = "broadcast"; })),
            "bad.json: collective: unknown collective \"broadcast\" (expected one of: allreduce, "
            "allgather, reducescatter, alltoall)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["protocol"] = "LL"; })),
            "bad.json: protocol: protocol \"LL\" is not imported (Simple only)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["gpus"][1]["id"] = 0; })),
            "bad.json: gpus[1].id: expected 1 (the executor reads gpus[rank])");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["gpus"][0]["output_chunks"] = 0; })),
            "bad.json: gpus[0].output_chunks: 0 is not a positive multiple of the 2 blocks of "
            "allgather on 2 ranks");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["gpus"][1]["input_chunks"] = 2; })),
            "bad.json: gpus[1]: input_chunks 2 and output_chunks 2, expected 1 and 2 (allgather "
            "of 2 units on 2 ranks)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              d["gpus"][0]["threadblocks"][0]["ops"][0]["name"] = "rres";
            })),
            "bad.json: gpus[0].threadblocks[0].ops[0].name: op \"rres\" is not imported "
            "(supported: nop, put, signal, wait, copy, re; reads of peers' memory, packets, "
            "switch channels and semaphores have no collplan counterpart)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              d["gpus"][0]["threadblocks"][0]["ops"][0]["name"] = "jump";
            })),
            "bad.json: gpus[0].threadblocks[0].ops[0].name: unknown op \"jump\"");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              d["gpus"][0]["threadblocks"][0]["ops"][0]["dst_buff"][0]["buffer_id"] = 3;
            })),
            "bad.json: gpus[0].threadblocks[0].ops[0].dst_buff[0].buffer_id: must be "
            "between 0 and 0, got 3");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              d["gpus"][0]["channels"][0]["channel_type"] = "port";
            })),
            "bad.json: gpus[0].channels[0].channel_type: channel type \"port\" is not imported "
            "(memory channels only)");
  EXPECT_EQ(importError("{\"name\": "),
            "bad.json: not valid JSON: parse error at line 1, column 10: syntax error while "
            "parsing value - unexpected end of input; expected '[', '{', or a literal");
}

TEST(MscclppJson, ImportChecksMessagesAndTheProof) {
  // Rank 1 no longer waits: rank 0's signal is never consumed.
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              nlohmann::json &ops = d["gpus"][1]["threadblocks"][0]["ops"];
              for (nlohmann::json &op : ops)
                if (op["name"] == "wait") op = nlohmann::json{{"name", "nop"}};
            })),
            "bad.json: gpus[0]: signals rank 1 that never waits for them (1 left)");
  // Rank 0 stores the received chunk over its own: out[1] is never written.
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              for (nlohmann::json &op : d["gpus"][0]["threadblocks"][0]["ops"])
                if (op["name"] == "copy" && op["src_buff"][0]["type"] == "s")
                  op["dst_buff"][0]["index"] = 0;
            })),
            "bad.json: programs[0].channels[0].ops[3]: does not compute its allgather: out[0] of "
            "rank 0 holds in[0] of rank 1 instead of in[0] of rank 0 (and 1 more problems)");
}

TEST(MscclppJson, EveryEditIsAPlanOrAPlanError) {
  const std::string json =
      nlohmann::json::parse(planToMscclppJson(ringAllReducePlan(3, ReduceOp::Sum))).dump();
  int checked = 0;
  for (size_t n = 0; n < json.size(); n += 7, ++checked) {
    EXPECT_NO_THROW(importError(json.substr(0, n))) << "prefix " << n;
    std::string edit = json;
    edit[n] = edit[n] == '1' ? '2' : '1';
    EXPECT_NO_THROW(importError(edit)) << "edit at " << n;
  }
  EXPECT_GT(checked, 100);
}

TEST(MscclppJson, PublicExamplesAreRefusedByName) {
  const std::string json = readData("mscclpp_allreduce_2.mscclpp.json");
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(importError(json),
            "bad.json: gpus[0].threadblocks[0].ops[0].name: op \"rlxsignal\" is not imported "
            "(supported: nop, put, signal, wait, copy, re; reads of peers' memory, packets, "
            "switch channels and semaphores have no collplan counterpart)");
}

} // namespace
} // namespace collplan
