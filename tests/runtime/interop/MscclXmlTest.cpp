// MSCCL XML: built-in plans round trip through export and import; bad input fails by name.
#include "runtime/interop/MscclXml.h"
#include "runtime/interop/XmlReader.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/plan/Transfers.h"

#include "InteropTestSupport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace collplan {
namespace {

using interoptest::messagesPerPair;
using interoptest::readData;

TEST(MscclXml, BuiltInPlansRoundTrip) {
  const CollectiveKind kinds[] = {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                                  CollectiveKind::ReduceScatter, CollectiveKind::AllToAll};
  int roundTrips = 0;
  for (const BuiltInPlan &gen : builtInPlans())
    for (CollectiveKind kind : kinds) {
      if (!gen.serves(kind)) continue;
      for (int n = 2; n <= 8; ++n) {
        SCOPED_TRACE(std::string(gen.name) + " " + std::string(toString(kind)) +
                     " N=" + std::to_string(n));
        const Plan plan = gen.make(kind, n, ReduceOp::Sum, 0, -1);
        std::string xml;
        try {
          xml = planToMscclXml(plan);
        } catch (const std::invalid_argument &e) {
          ADD_FAILURE() << e.what();
          continue;
        }
        const Plan back = mscclXmlToPlan(xml, "roundtrip.xml");
        EXPECT_TRUE(verifyPlan(back).ok()) << verifyPlan(back).describe();
        EXPECT_EQ(back.collective, plan.collective);
        EXPECT_EQ(back.ranks, plan.ranks);
        EXPECT_EQ(back.units, plan.units);
        EXPECT_EQ(back.scratchUnits, plan.scratchUnits);
        EXPECT_EQ(back.inplaceSafe, plan.inplaceSafe);
        EXPECT_EQ(messagesPerPair(back), messagesPerPair(plan));
        EXPECT_EQ(planToMscclXml(back), xml) << "export of the import differs";
        ++roundTrips;
      }
    }
  // ring (3 kinds), two-shot, recursive doubling (2), recursive halving, direct: N = 2..8.
  EXPECT_EQ(roundTrips, 8 * 7); // the sweep cannot pass by testing nothing
}

/// A 2-rank out-of-place allgather: each rank copies its block, sends it and receives the
/// other's. Line 1 is <algo>, 2 and 9 the gpus, 3 and 10 their tbs, 4-6 and 11-13 the steps.
std::string ringAllGather2() {
  std::string xml =
      "<algo name=\"t\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" "
      "coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"1024\">\n";
  for (int r = 0; r < 2; ++r) {
    const std::string me = std::to_string(r), peer = std::to_string(1 - r);
    xml += "  <gpu id=\"" + me +
           "\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n"
           "    <tb id=\"0\" send=\"" +
           peer + "\" recv=\"" + peer +
           "\" chan=\"0\">\n"
           "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"" +
           me +
           "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
           "      <step s=\"1\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"-1\" "
           "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
           "      <step s=\"2\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"" +
           peer +
           "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
           "    </tb>\n"
           "  </gpu>\n";
  }
  return xml + "</algo>\n";
}

/// `text` with the first occurrence of `from` after character `start` replaced by `to`.
std::string edited(std::string text, const std::string &from, const std::string &to,
                   size_t start = 0) {
  const size_t at = text.find(from, start);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// Where gpu 1's element starts, for edits of its steps.
size_t gpu1() { return ringAllGather2().find("<gpu id=\"1\""); }

void expectImportError(const std::string &xml, const std::string &message) {
  try {
    mscclXmlToPlan(xml, "t.xml");
    ADD_FAILURE() << "accepted; expected: " << message;
  } catch (const PlanError &e) { EXPECT_EQ(std::string(e.what()), message); }
}

TEST(MscclXml, HandWrittenAlgorithmImports) {
  const Plan plan = mscclXmlToPlan(ringAllGather2(), "t.xml");
  EXPECT_EQ(plan.collective, CollectiveKind::AllGather);
  EXPECT_EQ(plan.ranks, 2);
  EXPECT_EQ(plan.units, 2u);
  EXPECT_EQ(plan.algorithm, "t");
  ASSERT_EQ(plan.programs[1].channels.size(), 1u);
  const std::vector<PlanOp> &ops = plan.programs[1].channels[0].ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].kind, OpKind::Copy);
  EXPECT_EQ(ops[1].kind, OpKind::Send);
  EXPECT_EQ(ops[1].sends, std::vector<int32_t>{0});
  EXPECT_EQ(ops[2].kind, OpKind::Recv);
  EXPECT_EQ(ops[2].recv, 0);
  EXPECT_EQ(ops[2].dsts.front(), (BufRef{BufferKind::Out, 0, 1}));
  EXPECT_EQ(plan.params["msccl_max_bytes"], 1024);
}

struct BadXml {
  std::string input;
  std::string message;
};

TEST(MscclXml, MalformedDocumentsFailWithLineAndReason) {
  const std::string good = ringAllGather2();
  std::string nested;
  for (int i = 0; i < 65; ++i) nested += "<a>";
  const std::vector<BadXml> cases = {
      {"", "t.xml:1: the document has no root element"},
      {"<!DOCTYPE algo>" + good,
       "t.xml:1: DTDs, CDATA sections and processing instructions are not supported"},
      {nested, "t.xml:1: elements nest deeper than 64 levels"},
      {good.substr(0, good.find("<step")), "t.xml:4: <tb> (line 3) is not closed"},
      {edited(good, "</gpu>", "</gpux>"), "t.xml:8: </gpux> closes <gpu> (line 2)"},
      {edited(good, "name=\"t\"", "name=\"a&foo;\""),
       "t.xml:1: unknown entity &foo; (only lt, gt, amp, apos, quot)"},
      {edited(good, "name=\"t\"", "name=\"t\" name=\"u\""),
       "t.xml:1: <algo> has attribute name twice"},
      {edited(good, "</algo>", "</algo><algo/>"),
       "t.xml:16: unexpected content after the root element <algo>"},
      {edited(good, "    <tb", "hello<tb"), "t.xml:3: text content is not supported (in <gpu>)"},
      {edited(good, "name=\"t\"", "name=t"), "t.xml:1: the value of attribute name must be quoted"},
      {"<foo/>", "t.xml:1: <foo>: the root element must be <algo>"},
      {edited(good, "coll=\"allgather\"", "coll=\"barrier\""),
       "t.xml:1: <algo>: coll \"barrier\" is not one of allreduce, allgather, reducescatter, "
       "alltoall"},
      {edited(good, "proto=\"Simple\"", "proto=\"Fast\""),
       "t.xml:1: <algo>: proto \"Fast\" is not one of Simple, LL, LL128"},
      {edited(good, " nchannels=\"1\"", ""), "t.xml:1: <algo>: missing attribute nchannels"},
      {edited(good, "ngpus=\"2\"", "ngpus=\"3\""),
       "t.xml:1: <algo>: ngpus is 3 but there is no <gpu id=\"2\">"},
      {edited(good, "i_chunks=\"1\"", "i_chunks=\"1\" x=\"2\""),
       "t.xml:2: <gpu id=\"0\">: unknown attribute x"},
      {edited(good, "<tb id=\"0\"", "<tb id=\"1\""),
       "t.xml:3: <tb id=\"1\">: attribute id: 1 is out of range [0, 0]"},
      {edited(good, "    </tb>\n",
              "    </tb>\n    <tb id=\"1\" send=\"1\" recv=\"-1\" chan=\"0\"/>\n"),
       "t.xml:8: <tb id=\"1\">: a second thread block sending to 1 on chan 0"},
      {edited(good, "send=\"1\"", "send=\"0\""),
       "t.xml:3: <tb id=\"0\">: a thread block of gpu 0 cannot send to or receive from itself"},
      {edited(good, "chan=\"0\"", "chan=\"1\""),
       "t.xml:3: <tb id=\"0\">: attribute chan: 1 is out of range [0, 0]"},
      {edited(good, "type=\"s\"", "type=\"zz\""), "t.xml:5: <step s=\"1\">: type \"zz\" is not one "
                                                  "of s, r, rcs, rrs, rrc, rrcs, cpy, re, nop"},
      {edited(good, "<step s=\"0\"", "<step s=\"5\""),
       "t.xml:4: <step s=\"5\">: steps of a thread block must be numbered 0, 1, ... in order; this "
       "is step 0"},
      {edited(good, " cnt=\"1\"", ""), "t.xml:4: <step s=\"0\">: missing attribute cnt"},
      {edited(good, "cnt=\"1\"", "cnt=\"72\""),
       "t.xml:4: <step s=\"0\">: attribute cnt: 72 is out of range [1, 71]"},
      {edited(good, "srcoff=\"0\"", "srcoff=\"x\""),
       "t.xml:4: <step s=\"0\">: attribute srcoff: \"x\" is not an integer"},
      {edited(good, "dstoff=\"0\"", "dstoff=\"2\""),
       "t.xml:4: <step s=\"0\">: dstoff 2 + cnt 1 exceeds the 2 chunks of buffer o"},
      {edited(good, "srcbuf=\"i\"", "srcbuf=\"x\""),
       "t.xml:4: <step s=\"0\">: srcbuf \"x\" is not one of i, o, s"},
      {edited(good, "depid=\"-1\" deps=\"-1\"", "depid=\"3\" deps=\"0\""),
       "t.xml:4: <step s=\"0\">: depid 3: the gpu has no such thread block"},
      {edited(good, "depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"-1\""),
       "t.xml:4: <step s=\"0\">: depid and deps must both be -1 or both be set"},
      {edited(good, "depid=\"-1\" deps=\"-1\"", "depid=\"0\" deps=\"0\""),
       "t.xml:4: <step s=\"0\">: depends on itself or a later step of its thread block"},
      {edited(good, "hasdep=\"0\"", "hasdep=\"2\""),
       "t.xml:4: <step s=\"0\">: attribute hasdep: 2 is out of range [0, 1]"},
      {edited(good, "recv=\"1\"", "recv=\"-1\""),
       "t.xml:6: <step s=\"2\">: a r step in a thread block without a recv peer"},
      {edited(good, "type=\"s\"", "type=\"nop\"", gpu1()),
       "t.xml:6: <step s=\"2\">: deadlock: gpu 0 thread block 0 never runs this step (it waits for "
       "its dependency, a message, or room to send, that never comes)"},
      {edited(good, "dstoff=\"1\" cnt", "dstoff=\"0\" cnt"),
       "t.xml: programs[0].channels[0].ops[2]: does not compute its allgather: out[0] of rank 0 "
       "holds in[0] of rank 1 instead of in[0] of rank 0 (and 1 more problems)"},
      {edited(good, "inplace=\"0\" outofplace=\"1\"", "inplace=\"0\" outofplace=\"0\""),
       "t.xml: <algo>: the algorithm runs neither in place nor out of place"},
  };
  const std::vector<BadXml> more = {
      {edited(good, "    <tb", "    <foo/>\n    <tb"),
       "t.xml:3: <foo>: unexpected element in <gpu>; expected <tb>"},
      {edited(good, "    </tb>\n",
              "    </tb>\n    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\"/>\n"),
       "t.xml:8: <tb id=\"0\">: duplicate thread block id 0"},
  };
  for (const BadXml &c : more) {
    SCOPED_TRACE(c.message);
    expectImportError(c.input, c.message);
  }
  for (const BadXml &c : cases) {
    SCOPED_TRACE(c.message);
    expectImportError(c.input, c.message);
  }
}

/// A message sent with 2 chunks and received as 1 at the end of the buffer: refused by the
/// validator (here for the sender's range), without writing past the buffer on the way.
TEST(MscclXml, MessageLengthsMustAgree) {
  std::string xml = edited(ringAllGather2(), "i_chunks=\"1\"", "i_chunks=\"2\"");
  xml = edited(xml, "type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"1\"",
               "type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"2\"");
  expectImportError(xml, "t.xml: programs[0].channels[0].ops[1].src[0]: in[0:2] is out of range: "
                         "rank 0's in buffer holds 1 unit");
}

TEST(MscclXml, EntitiesAndCommentsAreRead) {
  const std::string xml = "<?xml version=\"1.0\"?>\n<!-- a -- comment -->\n" +
                          edited(ringAllGather2(), "name=\"t\"", "name=\"a&lt;&#66;&#x43;&amp;\"");
  EXPECT_EQ(mscclXmlToPlan(xml, "t.xml").algorithm, "a<BC&");
}

/// Every prefix and many one-byte edits of a valid document: a plan or a PlanError, never a
/// crash or another exception.
TEST(MscclXml, DamagedDocumentsNeverCrash) {
  const std::string good = ringAllGather2();
  int refused = 0;
  auto attempt = [&](const std::string &xml) {
    try {
      mscclXmlToPlan(xml, "t.xml");
    } catch (const PlanError &) { ++refused; }
  };
  for (size_t n = 0; n < good.size(); ++n) attempt(good.substr(0, n));
  for (size_t i = 0; i < good.size(); ++i)
    for (char c : {'"', '<', '9', '-', '/', 'x'}) {
      std::string bad = good;
      bad[i] = c;
      attempt(bad);
    }
  EXPECT_GE(refused, int(good.size()));
}

TEST(MscclXml, LimitsOfSizeAndNumbers) {
  expectImportError(
      edited(ringAllGather2(), "ngpus=\"2\"", "ngpus=\"99999999999999999999\""),
      "t.xml:1: <algo>: attribute ngpus: 99999999999999999999 is out of range [1, 65536]");
  expectImportError(
      edited(ringAllGather2(), "s_chunks=\"0\"", "s_chunks=\"1048577\""),
      "t.xml:2: <gpu id=\"0\">: attribute s_chunks: 1048577 is out of range [0, 1048576]");
  const std::string huge(kMaxXmlBytes + 1, ' ');
  expectImportError(huge, "t.xml:1: the document has " + std::to_string(huge.size()) +
                              " bytes, more than the limit of " + std::to_string(kMaxXmlBytes));
}

/// The public MSCCL examples in data/ (msccl-tools' examples/mscclang, MIT licensed; most in
/// place only, as msccl-tools writes them): each imports, proves, and survives export and import
/// again.
TEST(MscclXml, PublicExamplesImportAndProve) {
  struct Example {
    const char *file;
    CollectiveKind kind;
    int ranks;
    bool inPlaceOnly;
  };
  const Example examples[] = {
      {"msccl_allgather_ring_4.xml", CollectiveKind::AllGather, 4, true},
      {"msccl_allgather_ring_8_2ch.xml", CollectiveKind::AllGather, 8, true},
      {"msccl_allreduce_a100_ring_4.xml", CollectiveKind::AllReduce, 4, true},
      {"msccl_allreduce_rdh_4.xml", CollectiveKind::AllReduce, 4, true},
      {"msccl_alltoall_allpairs_4.xml", CollectiveKind::AllToAll, 4, false},
  };
  for (const Example &ex : examples) {
    SCOPED_TRACE(ex.file);
    const std::string xml = readData(ex.file);
    ASSERT_FALSE(xml.empty());
    const Plan plan = mscclXmlToPlan(xml, ex.file);
    EXPECT_EQ(plan.collective, ex.kind);
    EXPECT_EQ(plan.ranks, ex.ranks);
    EXPECT_EQ(plan.inplaceSafe, ex.inPlaceOnly);
    if (ex.inPlaceOnly) { // the input is copied into the output first
      EXPECT_EQ(plan.programs[1].channels[0].ops[0].kind, OpKind::Copy);
    }
    const Plan again = mscclXmlToPlan(planToMscclXml(plan), "again.xml");
    EXPECT_EQ(messagesPerPair(again), messagesPerPair(plan));
  }
}

/// msccl-tools' allreduce_1step: every rank folds the whole message itself, starting from its
/// own input, so the ranks' results differ in the last bits: the proof says so.
TEST(MscclXml, PublicOneStepAllReduceIsNotDeterministic) {
  expectImportError(
      readData("msccl_allreduce_1step_4.xml"),
      "t.xml: programs[2].channels[0].ops[12]: does not compute its "
      "allreduce: out[0] of rank 2 is reduced in another order than on rank 0 (same "
      "contributions, different fold): results may differ in the last bits between ranks (and 7 "
      "more problems)");
}

TEST(MscclXml, InPlaceOnlyReduceScatterIsRefused) {
  const std::string xml =
      edited(edited(ringAllGather2(), "coll=\"allgather\"", "coll=\"reducescatter\""),
             " outofplace=\"1\"", "");
  try {
    mscclXmlToPlan(edited(xml, "inplace=\"0\"", "inplace=\"1\""), "t.xml");
    ADD_FAILURE() << "accepted";
  } catch (const PlanError &e) {
    EXPECT_EQ(std::string(e.what()),
              "t.xml: <algo>: an in-place-only reducescatter writes its result into its input, "
              "which collplan plans only read: regenerate it out of place");
  }
}

void expectExportError(const Plan &plan, const std::string &message) {
  try {
    planToMscclXml(plan);
    ADD_FAILURE() << "exported; expected: " << message;
  } catch (const std::invalid_argument &e) { EXPECT_EQ(std::string(e.what()), message); }
}

PlanOp op(OpKind kind, std::vector<BufRef> srcs, std::optional<int32_t> recv,
          std::vector<BufRef> dsts, std::vector<int32_t> sends, std::vector<OpRef> after = {}) {
  PlanOp o;
  o.kind = kind;
  o.srcs = std::move(srcs);
  o.recv = recv;
  o.dsts = std::move(dsts);
  o.sends = std::move(sends);
  o.after = std::move(after);
  return o;
}

BufRef ref(BufferKind buf, uint32_t offset, uint32_t length = 1) {
  return BufRef{buf, offset, length};
}

/// A 2-rank allreduce of `units` units: send the input, fold the peer's into it with `srcs`.
Plan exchangeAllReduce(uint32_t units, size_t localOperands) {
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = 2;
  plan.op = ReduceOp::Sum;
  plan.algorithm = "exchange";
  plan.units = units;
  plan.programs.resize(2);
  for (int r = 0; r < 2; ++r) {
    const BufRef in = ref(BufferKind::In, 0, units);
    plan.programs[r].channel(0).push_back(op(OpKind::Send, {in}, std::nullopt, {}, {1 - r}));
    plan.programs[r].channel(0).push_back(op(OpKind::RecvReduce,
                                             std::vector<BufRef>(localOperands, in), 1 - r,
                                             {ref(BufferKind::Out, 0, units)}, {}));
  }
  return plan;
}

TEST(MscclXml, ExportRefusesWhatMscclCannotExpress) {
  expectExportError(flatBroadcastPlan(4, 0),
                    "MSCCL export: broadcast is rooted, and MSCCL XML has no root: the executor "
                    "would run the algorithm for every root");
  expectExportError(disseminationBarrierPlan(4),
                    "MSCCL export: MSCCL XML has no collective for barrier");
  expectExportError(exchangeAllReduce(1, 2),
                    "MSCCL export: rank 0 channel 0 op 1 (recv_reduce): reduces the received value "
                    "with 2 local operands; MSCCL's receive steps fold one");
  expectExportError(exchangeAllReduce(72, 1),
                    "MSCCL export: rank 0 channel 0 op 0 (send): moves 72 units in one step; MSCCL "
                    "steps move fewer than 72 chunks");
  MscclExportOptions few;
  few.maxStepsPerThreadBlock = 1;
  try {
    planToMscclXml(exchangeAllReduce(1, 1), few);
    ADD_FAILURE() << "exported";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "MSCCL export: rank 0 thread block 0 (channel 0) has 2 steps; the "
                           "executor holds 1 (MSCCL_MAX_NUM_STEPS)");
  }
}

/// Rank 0 forwards what ranks 2 and 3 send it to rank 1: both ops send to 1, one receiving
/// from 2 and one from 3, which one MSCCL channel cannot hold (one thread block per peer).
TEST(MscclXml, ExportRefusesTwoThreadBlocksForOnePeer) {
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = 4;
  plan.algorithm = "forward";
  plan.units = 4;
  plan.programs.resize(4);
  plan.programs[2].channel(0).push_back(
      op(OpKind::Send, {ref(BufferKind::In, 0)}, std::nullopt, {}, {0}));
  plan.programs[3].channel(0).push_back(
      op(OpKind::Send, {ref(BufferKind::In, 0)}, std::nullopt, {}, {0}));
  for (int from : {2, 3}) {
    plan.programs[0].channel(0).push_back(
        op(OpKind::RecvCopySend, {}, from, {ref(BufferKind::Out, uint32_t(from))}, {1}));
    plan.programs[1].channel(0).push_back(
        op(OpKind::Recv, {}, 0, {ref(BufferKind::Out, uint32_t(from))}, {}));
  }
  expectExportError(plan,
                    "MSCCL export: rank 0 channel 0 op 1 (recv_copy_send): needs one thread block "
                    "sending to 1 and receiving from 3, but channel 0's thread block for one of "
                    "them has another peer for the other (MSCCL: one thread block per peer and "
                    "channel)");
}

/// Three channels ordered by `after`: dependencies become depid/deps, the second one a nop,
/// and come back as the same `after` references.
TEST(MscclXml, ChannelsAndAfterRoundTrip) {
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = 2;
  plan.algorithm = "channels";
  plan.units = 2;
  plan.scratchUnits = 2;
  plan.programs.resize(2);
  for (int r = 0; r < 2; ++r) {
    const int p = 1 - r;
    RankProgram &prog = plan.programs[r];
    prog.channel(0).push_back(op(OpKind::Send, {ref(BufferKind::In, 0)}, std::nullopt, {}, {p}));
    prog.channel(0).push_back(op(OpKind::Recv, {}, p, {ref(BufferKind::Out, uint32_t(p))}, {}));
    prog.channel(1).push_back(op(OpKind::Copy, {ref(BufferKind::In, 0)}, std::nullopt,
                                 {ref(BufferKind::Out, uint32_t(r))}, {}));
    prog.channel(1).push_back(op(OpKind::Copy, {ref(BufferKind::Out, uint32_t(p))}, std::nullopt,
                                 {ref(BufferKind::Tmp, 0)}, {}, {{0, 1}}));
    prog.channel(2).push_back(op(OpKind::Copy, {ref(BufferKind::Out, uint32_t(r))}, std::nullopt,
                                 {ref(BufferKind::Tmp, 1)}, {}, {{0, 1}, {1, 0}}));
  }
  ASSERT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
  const std::string xml = planToMscclXml(plan);
  EXPECT_NE(xml.find("type=\"nop\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("hasdep=\"1\""), std::string::npos) << xml;
  const Plan back = mscclXmlToPlan(xml, "channels.xml");
  ASSERT_EQ(back.programs[0].channels.size(), 3u);
  EXPECT_EQ(back.programs[0].channels[1].ops[1].after, (std::vector<OpRef>{{0, 1}}));
  EXPECT_EQ(back.programs[0].channels[2].ops[0].after, (std::vector<OpRef>{{0, 1}, {1, 0}}));
  EXPECT_EQ(planToMscclXml(back), xml);
}

} // namespace
} // namespace collplan
