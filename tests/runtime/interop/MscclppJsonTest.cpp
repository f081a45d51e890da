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
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["protocol"] = "LL128"; })),
            "bad.json: protocol: protocol \"LL128\" is not imported (Simple, LL)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["gpus"][1]["id"] = 0; })),
            "bad.json: gpus[1].id: expected 1 (the executor reads gpus[rank])");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["gpus"][0]["output_chunks"] = 0; })),
            "bad.json: gpus[0].output_chunks: 0 is not a positive multiple of the 2 blocks of "
            "allgather on 2 ranks");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) { d["gpus"][1]["input_chunks"] = 2; })),
            "bad.json: gpus[1]: input_chunks 2 and output_chunks 2, expected 1 and 2 (allgather "
            "of 2 units on 2 ranks)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              d["gpus"][0]["threadblocks"][0]["ops"][0]["name"] = "glres";
            })),
            "bad.json: gpus[0].threadblocks[0].ops[0].name: op \"glres\" is not imported (port "
            "and switch channels, pipelines and semaphores have no collplan counterpart; "
            "memory-channel and packet ops are)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              nlohmann::json &ops = d["gpus"][0]["threadblocks"][0]["ops"];
              while (ops.size() <= 64) ops.push_back({{"name", "nop"}});
            })),
            "bad.json: gpus[0].threadblocks[0].ops: 65 ops; a thread block holds 64 "
            "(MAX_OPERATION)");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              d["gpus"][0]["threadblocks"][0]["ops"][0]["tbg_info"] = {{"tb_id", 0}};
            })),
            "bad.json: gpus[0].threadblocks[0].ops[0].tbg_info: thread block groups (an op "
            "split over several thread blocks) are not imported");
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
            "bad.json: programs[0].channels[0].ops[1]: does not compute its allgather: out[0] of "
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

/// MSCCL++'s public plans (data/, MIT): its test/execution-files and plans its Python DSL
/// writes (python/mscclpp/language/tests, test/executor-tests) at commit 1f5f065.
TEST(MscclppJson, PublicPlansProveOrAreRefusedWithTheirReason) {
  const std::pair<const char *, const char *> plans[] = {
      {"mscclpp_allreduce_2.mscclpp.json", "imported"},
      {"mscclpp_dsl_allreduce_4.mscclpp.json", "imported"},
      {"mscclpp_dsl_allgather_pkt_2.mscclpp.json", "imported"},
      {"mscclpp_dsl_allgather_pkt_rppkt_4.mscclpp.json", "imported"},
      {"mscclpp_dsl_alltoall_4.mscclpp.json", "imported"},
      {"mscclpp_dsl_reduce_2.mscclpp.json", "imported"},
      {"mscclpp_dsl_transfer_pack_2.mscclpp.json", "imported"},
      // Rank 1 unpacks the packets of scratch chunks 2-3 into its chunks 0-1: the executor
      // sizes chunk k of every buffer alike, so the two differ when the size does not divide.
      {"mscclpp_allreduce_packet_2.mscclpp.json",
       "bad.json: programs[1].channels[0].ops[1].src[1]: out[2:3] starts at unit phase 2 but "
       "the op's value has phase 0 (offset mod 4 units per block): units of different phases "
       "differ in size when the count does not divide evenly, so one op must use a single "
       "phase"}};
  int proven = 0;
  for (const auto &[file, expected] : plans) {
    const std::string json = readData(file);
    ASSERT_FALSE(json.empty()) << file;
    EXPECT_EQ(importError(json), expected) << file;
    proven += std::string(expected) == "imported";
  }
  EXPECT_EQ(proven, 7);
}

/// The public 2-rank allreduce (rres after relaxed signals) with `edit` applied to rank 0's
/// thread block 0: rlxsignal, rlxwait, nop, rres, nop, signal, wait.
std::string editedAllReduce(const std::function<void(nlohmann::json &)> &edit) {
  nlohmann::json doc = nlohmann::json::parse(readData("mscclpp_allreduce_2.mscclpp.json"));
  edit(doc["gpus"][0]["threadblocks"][0]["ops"]);
  return doc.dump();
}

/// A local copy in[from] → in[to], as the DSL writes it.
nlohmann::json copyOp(int from, int to) {
  return {{"name", "copy"},
          {"src_buff", {{{"type", "i"}, {"index", from}, {"size", 1}}}},
          {"dst_buff", {{{"type", "i"}, {"index", to}, {"size", 1}}}}};
}

TEST(MscclppJson, RemoteReadsNeedTheOwnersSignal) {
  EXPECT_EQ(importError(editedAllReduce([](nlohmann::json &ops) { ops[1] = {{"name", "nop"}}; })),
            "bad.json: gpus[0].threadblocks[0].ops[3]: reads rank 1's out[0:1] with no wait on a "
            "channel from rank 1 before it in its thread block: nothing says the data is ready");
  // Rank 1 reads rank 0's chunk 8 after rank 0's relaxed signal: rank 0 may not write it
  // before that signal (a relaxed signal orders nothing) ...
  EXPECT_EQ(importError(editedAllReduce(
                [](nlohmann::json &ops) { ops.insert(ops.begin(), copyOp(8, 8)); })),
            "bad.json: gpus[0].threadblocks[0].ops[1]: rank 1 reads out[8:9] after this relaxed "
            "signal (rlxsignal), which does not order this thread block's earlier write of it");
  // ... nor after it, until it has waited for rank 1.
  EXPECT_EQ(importError(editedAllReduce(
                [](nlohmann::json &ops) { ops.insert(ops.begin() + 1, copyOp(8, 8)); })),
            "bad.json: gpus[0].threadblocks[0].ops[1]: overwrites out[8:9], which rank 1 may "
            "still be reading: it reads out[8:9] after this thread block's signal, and this "
            "thread block has not waited for it since");
}

TEST(MscclppJson, PutsNeedAFencedSignalAndWait) {
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              for (nlohmann::json &op : d["gpus"][0]["threadblocks"][0]["ops"])
                if (op["name"] == "signal") op["name"] = "rlxsignal";
            })),
            "bad.json: gpus[0].threadblocks[0].ops[2]: a relaxed signal (rlxsignal) does not make "
            "the puts to rank 1 before it visible; use signal");
  EXPECT_EQ(importError(edited([](nlohmann::json &d) {
              for (nlohmann::json &op : d["gpus"][1]["threadblocks"][0]["ops"])
                if (op["name"] == "wait") op["name"] = "rlxwait";
            })),
            "bad.json: gpus[1].threadblocks[0].ops[5]: a relaxed wait (rlxwait) does not make "
            "rank 0's puts visible; use wait");
}

TEST(MscclppJson, PacketsAreReadWhereTheyLand) {
  const auto packets = [](const std::function<void(nlohmann::json &)> &edit) {
    nlohmann::json doc =
        nlohmann::json::parse(readData("mscclpp_dsl_allgather_pkt_2.mscclpp.json"));
    edit(doc["gpus"]);
    return importError(doc.dump());
  };
  EXPECT_EQ(packets([](nlohmann::json &) {}), "imported");
  EXPECT_EQ(packets([](nlohmann::json &g) {
              g[0]["threadblocks"][1]["ops"][0]["src_buff"][0]["index"] = 0;
            }),
            "bad.json: gpus[0].threadblocks[1].ops[0]: reads packets at tmp[0] of rank 0 that no "
            "op writes: it would wait for them forever");
  EXPECT_EQ(packets([](nlohmann::json &g) {
              nlohmann::json &ops = g[1]["threadblocks"][0]["ops"];
              ops.push_back(ops[0]);
            }),
            "bad.json: gpus[1].threadblocks[0].ops[1]: writes packets to tmp[1] of rank 0, which "
            "another op writes too: with one flag per call, its reader cannot tell them apart");
}

/// A 2-rank packet allgather whose thread block 1 sends what thread block 0 copied: a barrier
/// between them (with `barrier`) or nothing.
std::string barrierAllGather(bool barrier) {
  using nlohmann::json;
  json gpus = json::array();
  for (int r = 0; r < 2; ++r) {
    const auto buff = [](const char *type, int index) {
      return json{{"type", type}, {"index", index}, {"size", 1}};
    };
    const json sync = barrier ? json{{"name", "barrier"}, {"barrier_id", 0},
                                     {"num_threadblocks", 2}}
                              : json{{"name", "nop"}};
    json tb0 = {{"id", 0}, {"channels", json::array()},
                {"ops", {{{"name", "copy"}, {"src_buff", {buff("i", 0)}},
                          {"dst_buff", {buff("o", r)}}},
                         sync}}};
    json tb1 = {{"id", 1},
                {"channels", {{{"channel_type", "memory"}, {"channel_ids", {0}}}}},
                {"remote_buffer_refs",
                 {{{"access_channel_type", "memory"}, {"remote_buffer_ids", {0}}}}},
                {"ops", {sync,
                         {{"name", "ppkt"}, {"channel_ids", {0}}, {"channel_type", "memory"},
                          {"src_buff", {buff("o", r)}},
                          {"dst_buff", {{{"buffer_id", 0}, {"index", 0}, {"size", 1}}}}},
                         {{"name", "upkt"}, {"src_buff", {buff("s", 0)}},
                          {"dst_buff", {buff("o", 1 - r)}}}}}};
    gpus.push_back({{"id", r}, {"input_chunks", 1}, {"output_chunks", 2}, {"scratch_chunks", 1},
                    {"channels", {{{"channel_type", "memory"}, {"connected_to", {1 - r}}}}},
                    {"remote_buffers",
                     {{{"rank", 1 - r}, {"type", "s"}, {"access_channel_types", {"memory"}}}}},
                    {"semaphores", json::array()}, {"threadblocks", {tb0, tb1}}});
  }
  return json{{"name", "barrier"}, {"collective", "allgather"}, {"protocol", "LL"},
              {"inplace", false}, {"gpus", gpus}}
      .dump();
}

TEST(MscclppJson, BarriersOrderThreadBlocks) {
  EXPECT_EQ(importError(barrierAllGather(true)), "imported");
  const std::string unordered = importError(barrierAllGather(false));
  EXPECT_NE(unordered.find("does not compute its allgather"), std::string::npos) << unordered;
}

} // namespace
} // namespace collplan
