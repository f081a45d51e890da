// The calibrated-machine model terms: per-op overhead, pull transfers, the near cache level and
// scratch in the footprint; each case's time derived by hand.
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"
#include "runtime/topology/Validate.h"

#include <gtest/gtest.h>

using namespace collplan;

namespace {

/// One device holding 2 ranks: memory 20 GB/s (2e4 bytes/µs), intra-device 10 GB/s, 1 µs.
Topology twoRankDevice() {
  GeneratorParams params;
  params.ranksPerDevice = 2;
  params.memBandwidthGBps = 20;
  Topology topo = switchTopology(1, params);
  topo.intraDeviceBandwidthGBps = 10;
  topo.intraDeviceLatencyUs = 1;
  validateTopology(topo, "two-rank device");
  topo.finalize();
  return topo;
}

Plan emptyPlan(uint32_t units, uint32_t scratch = 0) {
  Plan plan;
  plan.ranks = 2;
  plan.op = ReduceOp::Sum;
  plan.units = units;
  plan.scratchUnits = scratch;
  plan.programs.resize(2);
  return plan;
}

/// Rank 0 sends its input to rank 1, which receives it into its output.
Plan oneTransfer() {
  Plan plan = emptyPlan(1);
  PlanOp send;
  send.kind = OpKind::Send;
  send.srcs = {{BufferKind::In, 0, 1}};
  send.sends = {{1, 0}};
  PlanOp recv;
  recv.kind = OpKind::Recv;
  recv.recv = Endpoint{0, 0};
  recv.dsts = {{BufferKind::Out, 0, 1}};
  plan.programs[0].ops = {send};
  plan.programs[1].ops = {recv};
  return plan;
}

/// Both ranks copy their input to their output (1 read + 1 write of M each, all at once).
Plan bothCopy(uint32_t scratch = 0) {
  Plan plan = emptyPlan(1, scratch);
  for (auto &program : plan.programs) {
    PlanOp copy;
    copy.kind = OpKind::Copy;
    copy.srcs = {{BufferKind::In, 0, 1}};
    copy.dsts = {{BufferKind::Out, 0, 1}};
    program.ops = {copy};
  }
  return plan;
}

}  // namespace

TEST(SimModelTerms, PushChargesBothEnds) {
  // M = 1e4 bytes. Send: 1 read + 1 write landing at the receiver, both in the one memory:
  // weight 2 → 1e4 B/µs (and the 1e4 B/µs intra-device cap) → 1 µs, + 1 µs latency = 2 µs.
  // Recv: 1 read + 1 write → 1 µs more: 3 µs.
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), twoRankDevice(), 10000), 3.0, 1e-9);
}

TEST(SimModelTerms, PullChargesTheTransferOnceAtTheReceiver) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  // Send forwards a resident buffer: no memory traffic, no cap: done after the 1 µs latency.
  // Recv: reads the peer's buffer + writes its output (weight 2 → 1e4 B/µs), capped at the
  // 10 GB/s pull rate: 1 µs. Total 2 µs (push: 3 µs).
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 2.0, 1e-9);
  // The pull cap binds below the memory share: at 5 GB/s the read takes 2 µs: total 3 µs.
  topo.intraDeviceBandwidthGBps = 5;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 3.0, 1e-9);
}

TEST(SimModelTerms, PullStagesAComputedValueOnce) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  Plan plan = oneTransfer();
  plan.programs[0].ops[0].kind = OpKind::Reduce;  // in + in, sent: a computed value, no dst
  plan.programs[0].ops[0].srcs.push_back({BufferKind::In, 0, 1});
  // Sender: 2 reads + 1 staging write = weight 3 → 2e4/3 B/µs → 1.5 µs, + 1 µs latency.
  // Receiver: 1 µs as above. Total 3.5 µs.
  EXPECT_NEAR(simulateTimeUs(plan, topo, 10000), 3.5, 1e-9);
}

TEST(SimModelTerms, OpOverheadHoldsTheRankBeforeItsData) {
  Topology topo = twoRankDevice();
  topo.devices[0].opOverheadUs = 0.25;
  // Each of the two ops costs 0.25 µs before moving data: 3 µs (push) + 2 × 0.25 = 3.5 µs.
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 3.5, 1e-9);
  SimResult result = simulate(oneTransfer(), topo, 10000);
  EXPECT_NEAR(result.timelines[1][0].startUs, 2.25, 1e-9);  // data ready at 0.25 + 1 + 1
  // An empty message still pays the overheads and the latency: 0.25 + 1 + 0.25.
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 0), 1.5, 1e-9);
}

TEST(SimModelTerms, NearCacheThenCacheThenMemory) {
  Topology topo = twoRankDevice();
  topo.devices[0].nearCacheBytes = 65536;
  topo.devices[0].nearCacheBandwidthGBps = 80;
  topo.devices[0].cacheBytes = 1 << 20;
  topo.devices[0].cacheBandwidthGBps = 40;
  validateTopology(topo, "tiers");
  // Footprint 2 × M × 2 ranks; traffic 4 M over the tier's bandwidth.
  // M = 8 KiB: footprint 32 KiB fits the near cache: 4 × 8192 / 8e4 = 0.4096 µs.
  EXPECT_NEAR(simulateTimeUs(bothCopy(), topo, 8192), 0.4096, 1e-9);
  // M = 64 KiB: footprint 256 KiB fits the cache: 4 × 65536 / 4e4 = 6.5536 µs.
  EXPECT_NEAR(simulateTimeUs(bothCopy(), topo, 65536), 6.5536, 1e-9);
  // M = 1 MiB: footprint 4 MiB, memory: 4 × 1048576 / 2e4 = 209.7152 µs.
  EXPECT_NEAR(simulateTimeUs(bothCopy(), topo, 1 << 20), 209.7152, 1e-9);
}

TEST(SimModelTerms, ScratchCountsInTheFootprint) {
  Topology topo = twoRankDevice();
  topo.devices[0].nearCacheBytes = 65536;
  topo.devices[0].nearCacheBandwidthGBps = 80;
  topo.devices[0].cacheBytes = 1 << 20;
  topo.devices[0].cacheBandwidthGBps = 40;
  // M = 12 KiB: 2 × M × 2 = 48 KiB fits the near cache (4 × 12288 / 8e4 = 0.6144 µs); with one
  // scratch unit per rank 3 × M × 2 = 72 KiB does not: cache, 4 × 12288 / 4e4 = 1.2288 µs.
  EXPECT_NEAR(simulateTimeUs(bothCopy(0), topo, 12288), 0.6144, 1e-9);
  EXPECT_NEAR(simulateTimeUs(bothCopy(1), topo, 12288), 1.2288, 1e-9);
}

TEST(SimModelTerms, NegativeOverheadIsRejected) {
  Topology topo = twoRankDevice();
  topo.devices[0].opOverheadUs = -1;
  try {
    simulate(oneTransfer(), topo, 100);
    FAIL() << "expected SimError";
  } catch (const SimError &e) {
    EXPECT_NE(std::string(e.what()).find("opOverheadUs -1"), std::string::npos) << e.what();
  }
}
