// Device memory and reduction throughput as shared resources: dup vs copies, n-ary reduce, sharing.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

namespace collplan {
namespace {

using namespace simtest;

constexpr double kMemGBps = 10;
constexpr double kMemBytesPerUs = kMemGBps * 1e3;
constexpr double kBytes = 1 << 22;

void expectRel(double got, double want) { EXPECT_NEAR(got, want, 1e-9 * want); }

Topology oneDevice(int ranks) {
  Topology topo = handBuilt({ranks}, 0, {}, kMemGBps);
  topo.features.duplication = true;
  return topo;
}

PlanOp dupOp(BufRef src, std::vector<BufRef> dsts) {
  PlanOp op;
  op.kind = OpKind::Dup;
  op.srcs = {src};
  op.dsts = std::move(dsts);
  return op;
}

TEST(SimMemory, DupReadsOnceWhereTwoCopiesReadTwice) {
  Topology topo = oneDevice(1);
  BufRef in = unitsOf(BufferKind::In, 0), out = unitsOf(BufferKind::Out, 0),
         tmp = unitsOf(BufferKind::Tmp, 0);
  Plan dup = emptyPlan(CollectiveKind::Broadcast, 1, 1);
  dup.programs[0].channel(0) = {dupOp(in, {out, tmp})};
  Plan copies = emptyPlan(CollectiveKind::Broadcast, 1, 1);
  copies.programs[0].channel(0) = {copyOp(in, out), copyOp(in, tmp)};
  SimResult dupResult = simulate(dup, topo, uint64_t(kBytes));
  SimResult copyResult = simulate(copies, topo, uint64_t(kBytes));
  expectRel(dupResult.totalUs, 3 * kBytes / kMemBytesPerUs);   // 1 read + 2 writes
  expectRel(copyResult.totalUs, 4 * kBytes / kMemBytesPerUs);  // 2 × (1 read + 1 write)
  EXPECT_DOUBLE_EQ(dupResult.devices[0].memoryBytes, 3 * kBytes);
  EXPECT_DOUBLE_EQ(copyResult.devices[0].memoryBytes, 4 * kBytes);
  // With memory off, local work is free.
  EXPECT_EQ(simulateTimeUs(copies, topo, uint64_t(kBytes), SimOptions{true, false}), 0.0);
}

TEST(SimMemory, DupToTwoPeersReadsTheSourceOnce) {
  // Rank 0's memory is the bottleneck (links and peers are fast): a dup to two peers reads its
  // source once (plus remote writes elsewhere); two sends read it twice.
  Topology topo = handBuilt({1, 1, 1}, 0, {{0, 1, 1e4}, {0, 2, 1e4}}, 1e6);
  topo.devices[0].memBandwidthGBps = kMemGBps;
  topo.features.duplication = true;
  BufRef in = unitsOf(BufferKind::In, 0), out = unitsOf(BufferKind::Out, 0);
  Plan dup = emptyPlan(CollectiveKind::Broadcast, 3, 1);
  PlanOp op;
  op.kind = OpKind::Dup;
  op.srcs = {in};
  op.sends = {1, 2};
  dup.programs[0].channel(0) = {op};
  dup.programs[1].channel(0) = {recvOp(out, 0)};
  dup.programs[2].channel(0) = {recvOp(out, 0)};
  Plan sends = dup;
  sends.programs[0].channel(0) = {sendOp(in, 1), sendOp(in, 2)};
  double linkUs = kBytes / 1e7, peerUs = 2 * kBytes / 1e9;  // a peer's recv: 1R + 1W
  SimResult dupResult = simulate(dup, topo, uint64_t(kBytes));
  SimResult sendResult = simulate(sends, topo, uint64_t(kBytes));
  expectRel(dupResult.timelines[0][0].endUs, kBytes / kMemBytesPerUs);
  expectRel(sendResult.timelines[0][1].endUs, 2 * kBytes / kMemBytesPerUs);
  expectRel(dupResult.totalUs, kBytes / kMemBytesPerUs + peerUs);
  EXPECT_GT(kBytes / kMemBytesPerUs, linkUs);  // the case really is memory-bound
}

/// recv_reduce: `srcs` and the message from `peer` (at position `srcs.size()`) into `dst`.
PlanOp recvReduceOp(std::vector<BufRef> srcs, int peer, BufRef dst) {
  PlanOp op;
  op.kind = OpKind::RecvReduce;
  op.recvPos = uint32_t(srcs.size());
  op.srcs = std::move(srcs);
  op.recv = peer;
  op.dsts = {dst};
  return op;
}

TEST(SimMemory, AFusedChainIsChargedAsOnePass) {
  // The root folds two peers' messages into out: as a chain (the second op folds its message
  // into the first's accumulator) the executors make one pass that reads in and both messages
  // and writes out once; into two ranges, two passes that also read and write the middle one.
  Topology topo = handBuilt({1, 1, 1}, 0, {{0, 1, 1e4}, {0, 2, 1e4}}, 1e6);
  topo.devices[0].memBandwidthGBps = kMemGBps;
  BufRef in = unitsOf(BufferKind::In, 0), out = unitsOf(BufferKind::Out, 0),
         tmp = unitsOf(BufferKind::Tmp, 0);
  Plan chain = emptyPlan(CollectiveKind::Reduce, 3, 1);
  chain.scratchUnits = 1;
  chain.programs[1].channel(0) = {sendOp(in, 0)};
  chain.programs[2].channel(0) = {sendOp(in, 0)};
  chain.programs[0].channel(0) = {recvReduceOp({in}, 1, out), recvReduceOp({out}, 2, out)};
  Plan twoPasses = chain;
  twoPasses.programs[0].channel(0) = {recvReduceOp({in}, 1, tmp), recvReduceOp({tmp}, 2, out)};
  // Both messages land in the root's memory (2), then: head 2 reads + 1 write, the folded op
  // its message (1); unfused, the second op 2 reads + 1 write.
  EXPECT_DOUBLE_EQ(simulate(chain, topo, uint64_t(kBytes)).devices[0].memoryBytes, 6 * kBytes);
  EXPECT_DOUBLE_EQ(simulate(twoPasses, topo, uint64_t(kBytes)).devices[0].memoryBytes,
                   8 * kBytes);
}

TEST(SimMemory, RanksOfOneDeviceShareItsMemory) {
  Topology topo = oneDevice(2);
  Plan plan = emptyPlan(CollectiveKind::AllToAll, 2, 2);
  for (int r = 0; r < 2; ++r)
    plan.programs[r].channel(0) = {copyOp(unitsOf(BufferKind::In, 0), unitsOf(BufferKind::Out, 0))};
  // Two copies of M/2 bytes (a unit), each 1R + 1W: both at a quarter of the bandwidth.
  double unit = kBytes / 2;
  expectRel(simulateTimeUs(plan, topo, uint64_t(kBytes)), 4 * unit / kMemBytesPerUs);
  // Without contention each copy has the memory to itself.
  expectRel(simulateTimeUs(plan, topo, uint64_t(kBytes), SimOptions{false, true}),
            2 * unit / kMemBytesPerUs);
}

TEST(SimMemory, NaryReduceCostsNReadsAndOneWriteAndReductionThroughput) {
  Topology topo = oneDevice(1);
  Plan plan = emptyPlan(CollectiveKind::AllReduce, 1, 1);
  PlanOp reduce;
  reduce.kind = OpKind::Reduce;
  reduce.srcs = {unitsOf(BufferKind::In, 0), unitsOf(BufferKind::Tmp, 0),
                 unitsOf(BufferKind::Out, 0)};
  reduce.dsts = {unitsOf(BufferKind::Out, 0)};
  plan.programs[0].channel(0) = {reduce};
  // Memory-bound: 3 reads + 1 write.
  expectRel(simulateTimeUs(plan, topo, uint64_t(kBytes)), 4 * kBytes / kMemBytesPerUs);
  // Reduction-bound: 2 pairwise combines of M at 1 GB/s.
  topo.devices[0].reduceGBps = 1;
  SimResult result = simulate(plan, topo, uint64_t(kBytes));
  expectRel(result.totalUs, 2 * kBytes / 1e3);
  EXPECT_DOUBLE_EQ(result.devices[0].reduceBytes, 2 * kBytes);
}

TEST(SimMemory, FusedReduceSendSavesMemoryTraffic) {
  // The KangaRing saving: one 3R1W op (reduce two local chunks with the received one and send)
  // against a 2R1W reduce into scratch followed by a 1R1W send.
  Topology topo = handBuilt({1, 1}, 0, {{0, 1, 1e4}}, kMemGBps);
  BufRef a = unitsOf(BufferKind::In, 0), b = unitsOf(BufferKind::Tmp, 0);
  Plan fused = emptyPlan(CollectiveKind::Reduce, 2, 1);
  PlanOp op;
  op.kind = OpKind::RecvReduceSend;
  op.recv = 1;
  op.srcs = {a, b};
  op.sends = {1};
  fused.programs[0].channel(0) = {op};
  fused.programs[1].channel(0) = {sendOp(a, 0), recvOp(unitsOf(BufferKind::Out, 0), 0)};
  Plan split = fused;
  PlanOp reduce;
  reduce.kind = OpKind::RecvReduce;
  reduce.recv = 1;
  reduce.srcs = {a, b};
  reduce.dsts = {b};
  split.programs[0].channel(0) = {reduce, sendOp(b, 1)};
  SimResult fusedResult = simulate(fused, topo, uint64_t(kBytes));
  SimResult splitResult = simulate(split, topo, uint64_t(kBytes));
  // Device 0 also takes the landing write of rank 1's send (1W) in both plans.
  EXPECT_DOUBLE_EQ(fusedResult.devices[0].memoryBytes, (1 + 3) * kBytes);
  EXPECT_DOUBLE_EQ(splitResult.devices[0].memoryBytes, (1 + 3 + 1 + 1) * kBytes);
  EXPECT_LT(fusedResult.totalUs, splitResult.totalUs);
}

}  // namespace
}  // namespace collplan
