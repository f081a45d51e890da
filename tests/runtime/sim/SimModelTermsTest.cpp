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
  send.sends = {1};
  PlanOp recv;
  recv.kind = OpKind::Recv;
  recv.recv = 0;
  recv.dsts = {{BufferKind::Out, 0, 1}};
  plan.programs[0].channel(0) = {send};
  plan.programs[1].channel(0) = {recv};
  return plan;
}

/// Both ranks pull the other's input into their output at once (the shared-capacity case).
Plan bothPull() {
  Plan plan = emptyPlan(1);
  for (int r = 0; r < 2; ++r) {
    PlanOp send;
    send.kind = OpKind::Send;
    send.srcs = {{BufferKind::In, 0, 1}};
    send.sends = {1 - r};
    PlanOp recv;
    recv.kind = OpKind::Recv;
    recv.recv = 1 - r;
    recv.dsts = {{BufferKind::Out, 0, 1}};
    plan.programs[r].channel(0) = {send, recv};
  }
  return plan;
}

/// `simulate(plan, topo, bytes)` throws a SimError whose message contains `needle`.
void expectSimError(const Plan &plan, const Topology &topo, uint64_t bytes,
                    const std::string &needle) {
  try {
    simulate(plan, topo, bytes);
    FAIL() << "expected SimError containing \"" << needle << "\"";
  } catch (const SimError &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

/// Both ranks copy their input to their output (1 read + 1 write of M each, all at once).
Plan bothCopy(uint32_t scratch = 0) {
  Plan plan = emptyPlan(1, scratch);
  for (auto &program : plan.programs) {
    PlanOp copy;
    copy.kind = OpKind::Copy;
    copy.srcs = {{BufferKind::In, 0, 1}};
    copy.dsts = {{BufferKind::Out, 0, 1}};
    program.channel(0) = {copy};
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
  plan.programs[0].channel(0)[0].kind = OpKind::Reduce;  // in + in, sent: a computed value, no dst
  plan.programs[0].channel(0)[0].srcs.push_back({BufferKind::In, 0, 1});
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
  expectSimError(oneTransfer(), topo, 100, "opOverheadUs -1");
}

TEST(SimModelTerms, HandshakeSenderGoesOnAndTheReleaseComesBack) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  topo.intraDeviceHandshake = true;
  // Send: published at 0, the rank goes on (ends at 0). Recv: data ready after the 1 µs latency,
  // reads at 1e4 B/µs: ends at 2 µs. The release reaches rank 0 one latency later: 3 µs.
  SimResult result = simulate(oneTransfer(), topo, 10000);
  EXPECT_NEAR(result.timelines[0][0].endUs, 0.0, 1e-9);
  EXPECT_NEAR(result.timelines[1][0].endUs, 2.0, 1e-9);
  EXPECT_NEAR(result.totalUs, 3.0, 1e-9);
  // Empty message: two hand-offs, data and release: 2 µs.
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 0), 2.0, 1e-9);
  // Without pulls the flag is ignored: the push case, 3 µs as in PushChargesBothEnds.
  topo.intraDevicePull = false;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 3.0, 1e-9);
}

TEST(SimModelTerms, CleanPullOfAnInputIsALocalReadWhileTheCallFitsTheThreshold) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  topo.intraDeviceBandwidthGBps = 5;  // capped: the recv would take 2 µs at M = 1e4
  // Footprint 2 × 1e4 × 2 ranks = 4e4 bytes. Threshold 4e4: the recv of rank 0's unmodified
  // input is a local read: weight 2 on 2e4 B/µs memory → 1 µs, + 1 µs latency = 2 µs.
  topo.intraDeviceCleanPullBytes = 40000;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 2.0, 1e-9);
  // Just below the footprint: capped at 5 GB/s again: 2 µs + 1 µs = 3 µs.
  topo.intraDeviceCleanPullBytes = 39999;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 3.0, 1e-9);
  // A value written in the call (a computed, staged value) is never clean: the sender's reduce
  // (2 reads + 1 staging write, 1.5 µs) + 1 µs latency + the capped 2 µs read = 4.5 µs.
  topo.intraDeviceCleanPullBytes = 1e12;
  Plan plan = oneTransfer();
  plan.programs[0].channel(0)[0].kind = OpKind::Reduce;
  plan.programs[0].channel(0)[0].srcs.push_back({BufferKind::In, 0, 1});
  EXPECT_NEAR(simulateTimeUs(plan, topo, 10000), 4.5, 1e-9);
}

TEST(SimModelTerms, DevicePullCapacityIsSharedByConcurrentPulls) {
  const Plan plan = bothPull();
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  topo.devices[0].memBandwidthGBps = 1000;  // memory never binds
  // Each pull alone is capped at 10 GB/s: both at once, 1 µs latency + 1 µs = 2 µs.
  EXPECT_NEAR(simulateTimeUs(plan, topo, 10000), 2.0, 1e-9);
  // All pulls together at most 10 GB/s: each gets 5e3 B/µs, 2 µs: 1 + 2 = 3 µs.
  topo.devices[0].pullGBps = 10;
  EXPECT_NEAR(simulateTimeUs(plan, topo, 10000), 3.0, 1e-9);
  // One pull alone still gets its own cap (10 GB/s, not more): the one-transfer plan, 2 µs.
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 2.0, 1e-9);
  // Clean pulls use neither the cap nor the shared capacity, only memory: two recvs of weight 2
  // share 1e6 B/µs: 4e4 bytes in 0.04 µs, + 1 µs latency.
  topo.intraDeviceCleanPullBytes = 1e12;
  EXPECT_NEAR(simulateTimeUs(plan, topo, 10000), 1.04, 1e-9);
}

TEST(SimModelTerms, NegativePullCapacityIsRejected) {
  Topology topo = twoRankDevice();
  topo.devices[0].pullGBps = -1;
  expectSimError(oneTransfer(), topo, 100, "pullGBps -1");
}

TEST(SimModelTerms, PullTierSwitchesTheCapPastItsFootprint) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  topo.intraDeviceBandwidthGBps = 5;
  topo.intraDevicePullMemoryGBps = 2.5;
  // Footprint 2 × 1e4 × 2 ranks = 4e4 bytes. A tier at 4e4: the call fits, the near cap holds:
  // the recv reads 1e4 bytes at 5e3 B/µs (memory offers 1e4): 2 µs, + 1 µs latency = 3 µs.
  topo.intraDevicePullCacheBytes = 40000;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 3.0, 1e-9);
  // Just below the footprint: the far cap, 2.5e3 B/µs: 4 µs + 1 µs = 5 µs.
  topo.intraDevicePullCacheBytes = 39999;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 5.0, 1e-9);
  // No tier (0): today's single cap whatever the footprint, 3 µs.
  topo.intraDevicePullCacheBytes = 0;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 3.0, 1e-9);
  // A clean pull is a local read in either tier: memory only, weight 2 on 2e4 B/µs: 1 + 1 µs.
  topo.intraDevicePullCacheBytes = 39999;
  topo.intraDeviceCleanPullBytes = 1e12;
  EXPECT_NEAR(simulateTimeUs(oneTransfer(), topo, 10000), 2.0, 1e-9);
}

TEST(SimModelTerms, PullTierSwitchesTheSharedPullCapacity) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  topo.devices[0].memBandwidthGBps = 1000;  // memory never binds
  topo.devices[0].pullGBps = 10;
  topo.intraDevicePullMemoryGBps = 10;      // each pull's cap is the same in both tiers
  topo.devices[0].pullMemoryGBps = 4;
  // Near tier (footprint 4e4 fits): the two pulls share 1e4 B/µs, 5e3 each: 2 µs + 1 = 3 µs.
  topo.intraDevicePullCacheBytes = 40000;
  EXPECT_NEAR(simulateTimeUs(bothPull(), topo, 10000), 3.0, 1e-9);
  // Far tier: they share 4e3 B/µs, 2e3 each: 5 µs + 1 = 6 µs.
  topo.intraDevicePullCacheBytes = 39999;
  EXPECT_NEAR(simulateTimeUs(bothPull(), topo, 10000), 6.0, 1e-9);
  // Far tier without a shared rate (0): each keeps its own 1e4 B/µs cap: 1 µs + 1 = 2 µs.
  topo.devices[0].pullMemoryGBps = 0;
  EXPECT_NEAR(simulateTimeUs(bothPull(), topo, 10000), 2.0, 1e-9);
}

TEST(SimModelTerms, PullTierWithoutAFarRateIsRejected) {
  Topology topo = twoRankDevice();
  topo.intraDevicePull = true;
  topo.intraDevicePullCacheBytes = 100;  // footprint 2 × 1e4 × 2 exceeds it: the far cap is used
  expectSimError(oneTransfer(), topo, 10000, "intraDevicePullMemoryGBps 0");
  topo.intraDevicePullMemoryGBps = 5;
  topo.devices[0].pullMemoryGBps = -1;
  expectSimError(oneTransfer(), topo, 10000, "pullMemoryGBps -1");
}
