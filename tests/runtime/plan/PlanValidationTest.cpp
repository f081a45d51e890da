// Every plan validation error: the message names the file, the field path and the reason.
#include "PlanTestUtil.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanValidate.h"

#include <fstream>

using namespace collplan;
using namespace collplan::testing;
using nlohmann::json;

namespace {

json &op(json &doc, int rank, int index) {
  return doc["programs"][rank]["channels"][0]["ops"][index];
}

}  // namespace

TEST(PlanValidation, NotJsonAndMissingFile) {
  const std::string path = scratchPath("not-json.plan.json");
  std::ofstream(path) << "{\"format\": \"collplan-plan\", ";
  expectPlanError([&] { loadPlanFile(path); }, "", "not valid JSON");
  expectPlanError([&] { loadPlanFile(scratchPath("does-not-exist.json")); }, "",
                  "cannot open: No such file or directory");
  expectPlanError([] { planFromJson(json::array(), "x"); }, "", "expected an object");
}

TEST(PlanValidation, FormatAndVersion) {
  Plan p = ringAllReducePlan(2);
  expectPlanJsonError(p, [](json &d) { d["format"] = "collplan-bundle"; }, "format",
                      "expected \"collplan-plan\"");
  expectPlanJsonError(p, [](json &d) { d["version"] = 3; }, "version",
                      "unsupported plan format version 3 (this build reads version 2)");
  expectPlanJsonError(p, [](json &d) { d["version"] = 1; }, "version",
                      "version 1 predates channels and transfers matched in program order; "
                      "regenerate the file with this build (plan-compile)");
  expectPlanJsonError(p, [](json &d) { d["version"] = "2"; }, "version", "expected an integer");
}

TEST(PlanValidation, MissingMistypedAndUnknownFields) {
  Plan p = ringAllReducePlan(2);
  for (const char *field : {"format", "version", "collective", "ranks", "algorithm", "units",
                            "programs"})
    expectPlanJsonError(p, [&](json &d) { d.erase(field); }, field, "missing required field");
  expectPlanJsonError(p, [](json &d) { d["ranks"] = "two"; }, "ranks",
                      "expected an integer, got a string");
  expectPlanJsonError(p, [](json &d) { d["units"] = 2.5; }, "units",
                      "expected an integer, got a floating-point number");
  expectPlanJsonError(p, [](json &d) { d["units"] = -1; }, "units", "must be between 0 and");
  expectPlanJsonError(p, [](json &d) { d["inplace_safe"] = 1; }, "inplace_safe",
                      "expected true or false");
  expectPlanJsonError(p, [](json &d) { d["params"] = json::array(); }, "params",
                      "expected an object");
  expectPlanJsonError(p, [](json &d) { d["predicted"].erase("beta"); }, "predicted.beta",
                      "missing required field");
  expectPlanJsonError(p, [](json &d) { d["predicted"]["beta"] = -1; }, "predicted.beta",
                      "must be a finite number >= 0");
  expectPlanJsonError(p, [](json &d) { d["scratch_unit"] = 1; }, "scratch_unit", "unknown field");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["srcs"] = json::array(); },
                      "programs[0].channels[0].ops[0].srcs", "unknown field");
  expectPlanJsonError(p, [](json &d) { op(d, 1, 0).erase("op"); }, "programs[1].channels[0].ops[0].op",
                      "missing required field");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["send"][0] = {{"peer", 1}}; },
                      "programs[0].channels[0].ops[0].send[0]", "expected an integer, got an object");
  expectPlanJsonError(p, [](json &d) { d["programs"][0].erase("channels"); },
                      "programs[0].channels", "missing required field");
  expectPlanJsonError(p, [](json &d) { d["programs"][0]["ops"] = json::array(); },
                      "programs[0].ops", "unknown field");
  expectPlanJsonError(p, [](json &d) { d["programs"][0]["channels"][0]["name"] = "x"; },
                      "programs[0].channels[0].name", "unknown field");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["after"] = {{{"channel", 1}}}; },
                      "programs[0].channels[0].ops[1].after[0].op", "missing required field");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["src"] = "in[0:1]"; },
                      "programs[0].channels[0].ops[0].src", "expected an array");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["src"][0] = 3; },
                      "programs[0].channels[0].ops[0].src[0]", "expected a string");
  expectPlanJsonError(p, [](json &d) { d["programs"][1]["rank"] = 0; }, "programs[1].rank",
                      "programs must be listed in rank order");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["step"] = -2; }, "programs[0].channels[0].ops[1].step",
                      "must be between -1 and");
}

TEST(PlanValidation, UnknownNames) {
  Plan p = ringAllReducePlan(2);
  expectPlanJsonError(p, [](json &d) { d["collective"] = "allsum"; }, "collective",
                      "unknown collective \"allsum\"");
  expectPlanJsonError(p, [](json &d) { d["op"] = "avg"; }, "op", "unknown reduction op \"avg\"");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["op"] = "recv_add"; },
                      "programs[0].channels[0].ops[1].op", "unknown op kind \"recv_add\"");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["src"][0] = "scratch[0:1]"; },
                      "programs[0].channels[0].ops[0].src[0]", "unknown buffer \"scratch\"");
}

TEST(PlanValidation, MalformedBufferReferences) {
  Plan p = ringAllReducePlan(2);
  for (const char *text : {"in[0-1]", "in[0:1", "in[x:1]", "in", "in[-1:1]"})
    expectPlanJsonError(p, [&](json &d) { op(d, 0, 0)["src"][0] = text; },
                        "programs[0].channels[0].ops[0].src[0]", "malformed buffer reference");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["src"][0] = "in[1:1]"; },
                      "programs[0].channels[0].ops[0].src[0]", "empty or reversed unit range");
}

TEST(PlanValidation, RanksProgramsOpAndRoot) {
  Plan p = ringAllReducePlan(2);
  expectPlanJsonError(p, [](json &d) { d["ranks"] = 0; }, "ranks", "must be at least 1, got 0");
  // Refused before the programs are read: the limits of runtime/core/Limits.h.
  expectPlanJsonError(p, [](json &d) { d["ranks"] = 65537; }, "ranks",
                      "ranks 65537 is above the limit of 65536");
  expectPlanJsonError(p, [](json &d) { d["units"] = 4294967294u; }, "units",
                      "units 4294967294 is above the limit of 16777216");
  expectPlanJsonError(p, [](json &d) { d["scratch_units"] = 16777217; }, "scratch_units",
                      "scratch_units 16777217 is above the limit of 16777216");
  expectPlanJsonError(p, [](json &d) { d["ranks"] = 3; }, "programs",
                      "has 2 programs but ranks is 3");
  expectPlanJsonError(p, [](json &d) { d.erase("op"); }, "op",
                      "allreduce needs a reduction op");
  expectPlanJsonError(p, [](json &d) { d["root"] = 0; }, "root", "allreduce has no root");
  Plan g = allGatherPlan2();
  expectPlanJsonError(g, [](json &d) { d["op"] = "sum"; }, "op", "allgather does not reduce");
  Plan b = broadcastPlan2(0);
  expectPlanJsonError(b, [](json &d) { d["root"] = 2; }, "root", "root 2 is out of range for 2 ranks");
  expectPlanJsonError(b, [](json &d) { d["root"] = -1; }, "root", "out of range");
  expectPlanJsonError(b, [](json &d) { d.erase("root"); }, "root", "broadcast needs a root");
}

TEST(PlanValidation, UnitsMustBeAMultipleOfMessageBlocks) {
  Plan g = allGatherPlan2();
  expectPlanJsonError(g, [](json &d) { d["units"] = 3; }, "units",
                      "3 is not a positive multiple of the 2 message blocks of allgather");
  Plan p = ringAllReducePlan(2);
  expectPlanJsonError(p, [](json &d) { d["units"] = 0; }, "units", "not a positive multiple");
}

TEST(PlanValidation, BarrierMayHaveZeroUnits) {
  Plan barrier;
  barrier.collective = CollectiveKind::Barrier;
  barrier.ranks = 2;
  barrier.algorithm = "pairwise";
  barrier.units = 0;
  barrier.programs.resize(2);
  for (int r = 0; r < 2; ++r) {
    PlanOp send;
    send.kind = OpKind::Send;
    send.sends = {1 - r};
    PlanOp recv;
    recv.kind = OpKind::Recv;
    recv.recv = 1 - r;
    barrier.programs[size_t(r)].channel(0) = {send, recv};
  }
  Plan loaded = planFromJson(planToJson(barrier), "barrier");
  EXPECT_EQ(loaded.units, 0u);
  EXPECT_EQ(loaded.programs[1].channels[0].ops[1].length(), 0u);
}

TEST(PlanValidation, BufferRangesArePerRank) {
  Plan p = ringAllReducePlan(2);
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["src"][0] = "in[1:3]"; },
                      "programs[0].channels[0].ops[0].src[0]",
                      "in[1:3] is out of range: rank 0's in buffer holds 2 units");
  expectPlanJsonError(p, [](json &d) { op(d, 1, 2)["dst"][0] = "tmp[0:1]"; },
                      "programs[1].channels[0].ops[2].dst[0]", "rank 1's tmp buffer holds 0 units");
  // Reduce: only the root has an output buffer.
  Plan reduce = binomialReducePlan(2, 0, ReduceOp::Sum);
  json doc = planToJson(reduce);
  doc["programs"][1]["channels"][0]["ops"].push_back(
      {{"op", "copy"}, {"src", {"in[0:1]"}}, {"dst", {"out[0:1]"}}});
  collplan::testing::expectPlanError([&] { planFromJson(doc, "test.plan.json"); },
                           "programs[1].channels[0].ops[1].dst[0]",
                           "rank 1's out buffer holds 0 units (reduce gives this rank no out buffer)");
}

TEST(PlanValidation, PlansNeverWriteTheInput) {
  Plan b = broadcastPlan2(0);
  expectPlanJsonError(b, [](json &d) { op(d, 1, 0)["dst"][0] = "in[0:1]"; },
                      "programs[1].channels[0].ops[0].dst[0]",
                      "in[0:1] writes the caller's input, which plans only read (write out or tmp)");
}

TEST(PlanValidation, OperandLengthsAndPhases) {
  Plan p = ringAllReducePlan(4);  // units 4, one block: phase = offset mod 4
  p.scratchUnits = 8;
  expectPlanJsonError(p, [](json &d) { op(d, 0, 3)["dst"] = {"out[0:2]"}; },
                      "programs[0].channels[0].ops[3].dst[0]", "is 2 units long but the op's value is 1");
  json doc = planToJson(p);
  // A tmp unit of another phase may hold a different number of elements: rejected.
  expectPlanJsonError(p, [](json &d) { op(d, 0, 3)["dst"] = {"tmp[0:1]"}; },
                      "programs[0].channels[0].ops[3].dst[0]", "unit phase 0 but the op's value has phase 1");
  // The same phase in the next block of tmp is fine.
  op(doc, 0, 3)["dst"] = {"tmp[5:6]"};
  EXPECT_NO_THROW(planFromJson(doc, "phase-ok", collplan::testing::structureOnly()));  // not an allreduce any more
}

TEST(PlanValidation, OpShapes) {
  Plan p = ringAllReducePlan(2);
  // ops: rank 0: [send in[0:1]], [recv_reduce_send in[1:2] -> out], [recv -> out[0:1]]
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["recv_pos"] = 2; },
                      "programs[0].channels[0].ops[1].recv_pos", "recv_pos 2 is past the 1 src operands");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["recv_pos"] = 1; },
                      "programs[0].channels[0].ops[0].recv_pos", "send receives nothing");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["dst"] = {"out[0:1]"}; },
                      "programs[0].channels[0].ops[0].dst", "send takes exactly 0 dst references, got 1");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 2).erase("recv"); }, "programs[0].channels[0].ops[2].recv",
                      "recv needs a recv peer");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["op"] = "copy"; }, "programs[0].channels[0].ops[0].dst",
                      "copy takes exactly 1 dst reference, got 0");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["op"] = "reduce"; },
                      "programs[0].channels[0].ops[1].recv", "reduce does not receive");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["op"] = "recv_copy_send"; },
                      "programs[0].channels[0].ops[1].src", "recv_copy_send takes exactly 0 src references");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["op"] = "dup"; }, "programs[0].channels[0].ops[1].src",
                      "dup reads exactly one value: one src or one recv, not both");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["op"] = "dup"; }, "programs[0].channels[0].ops[0].dst",
                      "dup writes its value at least twice");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["send"].push_back(1); },
                      "programs[0].channels[0].ops[0].send", "send takes exactly 1 send peer, got 2");
}

TEST(PlanValidation, Peers) {
  Plan p = ringAllReducePlan(2);
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["send"][0] = 2; },
                      "programs[0].channels[0].ops[0].send[0]", "peer 2 is out of range for 2 ranks");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 0)["send"][0] = -1; },
                      "programs[0].channels[0].ops[0].send[0]", "out of range");
  expectPlanJsonError(p, [](json &d) { op(d, 1, 1)["recv"] = 1; },
                      "programs[1].channels[0].ops[1].recv", "peer 1 is this rank itself");
  Plan b = broadcastPlan2(0);  // rank 0 dups in[0:1] to out[0:1] and rank 1
  expectPlanJsonError(b, [](json &d) { op(d, 0, 0)["send"] = {1, 1}; },
                      "programs[0].channels[0].ops[0].send[1]",
                      "sends its value to rank 1 twice");
}

TEST(PlanValidation, UnmatchedTransfers) {
  Plan p = ringAllReducePlan(2);
  // Each rank sends 2 messages to the other on channel 0 and receives 2.
  expectPlanJsonError(p, [](json &d) { d["programs"][1]["channels"][0]["ops"].erase(2); },
                      "programs[0].channels[0].ops[1].send[0]",
                      "unmatched send: rank 0 to rank 1 on channel 0 sends 2 messages but rank 1 "
                      "receives 1 from rank 0 on that channel");
  expectPlanJsonError(p, [](json &d) { d["programs"][0]["channels"][0]["ops"].erase(0); },
                      "programs[1].channels[0].ops[2].recv",
                      "unmatched recv: rank 1 receives 2 messages from rank 0 on channel 0 but "
                      "rank 0 sends 1 there");
  // A message sent on channel 1 is not received on channel 0: rank 1 misses it there.
  expectPlanJsonError(p, [](json &d) {
    json moved = d["programs"][0]["channels"][0]["ops"][0];
    d["programs"][0]["channels"][0]["ops"].erase(0);
    d["programs"][0]["channels"].push_back({{"ops", json::array({moved})}});
  }, "programs[1].channels[0].ops[2].recv",
     "unmatched recv: rank 1 receives 2 messages from rank 0 on channel 0 but rank 0 sends 1 "
     "there");
}

TEST(PlanValidation, TransfersMatchInProgramOrder) {
  Plan p = ringAllReducePlan(3);
  p.units = 6;  // every reference keeps its 1-unit length; widen one send
  json doc = planToJson(p);
  for (auto &program : doc["programs"])
    for (auto &o : program["channels"][0]["ops"]) {
      for (auto *key : {"src", "dst"})
        if (o.contains(key))
          for (auto &r : o[key]) {
            std::string s = r.get<std::string>();
            int a = s[s.find('[') + 1] - '0';
            r = s.substr(0, s.find('[')) + "[" + std::to_string(2 * a) + ":" +
                std::to_string(2 * a + 1) + "]";
          }
    }
  ASSERT_NO_THROW(planFromJson(doc, "widened", collplan::testing::structureOnly()));
  op(doc, 0, 0)["src"][0] = "in[0:2]";
  expectPlanError([&] { planFromJson(doc, "widened"); }, "programs[0].channels[0].ops[0].send[0]",
                  "message 0 from rank 0 to rank 1 on channel 0 is 2 units long but "
                  "programs[1].channels[0].ops[1] receives 1");
}

TEST(PlanValidation, TransferPhasesMustAgree) {
  Plan q = ringAllReducePlan(2);
  q.units = 4;
  q.scratchUnits = 4;
  json two = planToJson(q);
  op(two, 1, 2)["dst"][0] = "tmp[0:1]";  // the last receive stores phase 1 at phase 0
  expectPlanError([&] { planFromJson(two, "test.plan.json"); },
                  "programs[0].channels[0].ops[1].send[0]",
                  "message 1 from rank 0 to rank 1 on channel 0 sends units of phase 1 but "
                  "programs[1].channels[0].ops[2] stores them at phase 0");
}

TEST(PlanValidation, ChannelsAndAfterReferences) {
  Plan p = ringAllReducePlan(2);
  json doc = planToJson(p);
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["after"] = {{{"channel", 1}, {"op", 0}}}; },
                      "programs[0].channels[0].ops[1].after[0].channel",
                      "channel 1 does not exist: this rank has 1 channels");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["after"] = {{{"channel", 0}, {"op", 0}}}; },
                      "programs[0].channels[0].ops[1].after[0].channel",
                      "names the op's own channel 0");
  // Two channels waiting on each other: neither can start.
  expectPlanJsonError(p, [](json &d) {
    json ops = d["programs"][0]["channels"][0]["ops"];
    json copy = {{"op", "copy"}, {"src", {"in[0:1]"}}, {"dst", {"out[0:1]"}},
                 {"after", {{{"channel", 0}, {"op", 0}}}}};
    op(d, 0, 0)["after"] = {{{"channel", 1}, {"op", 0}}};
    d["programs"][0]["channels"].push_back({{"ops", json::array({copy})}});
  }, "programs[0].channels[0].ops[0].after",
     "can never start: the `after` references of rank 0 and the order of its channels form a cycle");
  expectPlanJsonError(p, [](json &d) { op(d, 0, 1)["after"] = {{{"channel", 1}, {"op", 4}}};
                                       d["programs"][0]["channels"].push_back({{"ops", json::array()}}); },
                      "programs[0].channels[0].ops[1].after[0].op",
                      "op 4 does not exist: channel 1 has 0 ops");
  expectPlanJsonError(p, [](json &d) {
    d["programs"][0]["channels"] = json::array();
    for (int c = 0; c < 33; ++c) d["programs"][0]["channels"].push_back({{"ops", json::array()}});
  }, "programs[0].channels", "has 33 channels; a rank may have at most 32");
}

TEST(PlanValidation, InMemoryValidationUsesTheSamePaths) {
  Plan p = ringAllReducePlan(3);
  p.programs[2].channels[0].ops[1].srcs[0].offset = 2;
  p.programs[2].channels[0].ops[1].srcs[0].length = 2;
  expectPlanError([&] { validatePlan(p, "compiler"); }, "programs[2].channels[0].ops[1].src[0]",
                  "out of range");
  Plan q = ringAllReducePlan(3);
  q.formatVersion = 9;
  expectPlanError([&] { validatePlan(q, "compiler"); }, "version", "unsupported");
  Plan e;
  e.algorithm = "";
  e.programs.resize(1);
  e.op = ReduceOp::Sum;
  expectPlanError([&] { validatePlan(e, "compiler"); }, "algorithm", "must not be empty");
}
