// Sweep, cost and bad-parameter tests of the KangaRing, Mesh, one/two-shot and hierarchical
// lowerings.
#include "ScheduleTestSupport.h"

#include "compiler/Passes.h"
#include "compiler/analysis/CostModel.h"
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/lowering/Algorithms.h"
#include "runtime/topology/Generators.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace collplan;
using collplan::testing::IRFixture;
using collplan::testing::paramError;
using collplan::testing::paramsOf;

namespace {

/// A schedule built into its own module, or the error `buildSchedule` gave.
struct Lowered {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::coll::ScheduleOp schedule;
  std::string error;
};

Lowered lower(IRFixture &f, const std::string &algorithm, CollectiveKind kind, int ranks,
              const AlgorithmParams &params) {
  Lowered out;
  mlir::MLIRContext &ctx = f.context();
  out.module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  mlir::OpBuilder builder(&ctx);
  builder.setInsertionPointToEnd(out.module->getBody());
  const CollectiveSpec spec = collplan::testing::summingSpec(kind, ranks);
  const AlgorithmInfo *info = findAlgorithm(algorithm);
  EXPECT_NE(info, nullptr) << algorithm;
  if (!info) return out;
  auto schedule = buildSchedule(builder, builder.getUnknownLoc(), spec, "s", *info, params,
                                out.error);
  if (mlir::succeeded(schedule)) out.schedule = *schedule;
  return out;
}

/// Lowers and verifies (semantics and determinism); no diagnostic may appear.
void expectVerifies(const std::string &algorithm, CollectiveKind kind, int ranks,
                    const AlgorithmParams &params, const std::string &what) {
  IRFixture f;
  Lowered l = lower(f, algorithm, kind, ranks, params);
  ASSERT_TRUE(l.schedule) << what << ": " << l.error;
  EXPECT_TRUE(mlir::succeeded(verifySchedule(l.schedule))) << what;
  EXPECT_TRUE(f.diagnostics().empty()) << what << ": " << f.diagnostics().front();
}

/// The error `algorithm` gives for `params` (empty when it lowers).
std::string lowerError(const std::string &algorithm, CollectiveKind kind, int ranks,
                       const AlgorithmParams &params) {
  IRFixture f;
  return lower(f, algorithm, kind, ranks, params).error;
}

/// The cost of the lowered schedule once coll-fuse-reduce-copy has fused each reduce sent on, as
/// the pipeline costs it.
ScheduleCost costOf(const std::string &algorithm, CollectiveKind kind, int ranks,
                    const AlgorithmParams &params) {
  IRFixture f;
  Lowered l = lower(f, algorithm, kind, ranks, params);
  EXPECT_TRUE(l.schedule) << algorithm << " N=" << ranks << ": " << l.error;
  if (!l.schedule) return ScheduleCost{};
  mlir::PassManager pm(&f.context());
  pm.addPass(createCollFuseReduceCopy());
  EXPECT_TRUE(mlir::succeeded(pm.run(*l.module))) << algorithm << " N=" << ranks;
  return analyzeCost(l.schedule);
}

std::vector<int> sweepSizes() {
  std::vector<int> sizes;
  for (int n = 2; n <= 33; ++n) sizes.push_back(n);
  sizes.push_back(64);
  return sizes;
}

std::string label(const std::string &algorithm, CollectiveKind kind, int n,
                  const std::string &extra = "") {
  return algorithm + " " + std::string(toString(kind)) + " N=" + std::to_string(n) + extra;
}

const CollectiveKind kRingKinds[] = {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                                     CollectiveKind::AllReduce};

TEST(LoweringSweep, KangaRingVerifiesForEveryEvenN) {
  for (int n : sweepSizes()) {
    if (n % 2 != 0) continue;
    for (int perDevice : {2, 4}) {
      if (n % perDevice != 0) continue;
      AlgorithmParams p =
          paramsOf("kangaring", {"ranks-per-device=" + std::to_string(perDevice)});
      for (CollectiveKind kind : kRingKinds)
        expectVerifies("kangaring", kind, n, p,
                       label("kangaring", kind, n, " per device " + std::to_string(perDevice)));
    }
  }
}

TEST(LoweringSweep, MeshTwoStepVerifiesForEveryN) {
  for (int n : sweepSizes())
    for (int perDevice : {1, 2, 4}) {
      if (n % perDevice != 0) continue;
      AlgorithmParams p =
          paramsOf("mesh-two-step", {"ranks-per-device=" + std::to_string(perDevice)});
      for (CollectiveKind kind : kRingKinds)
        expectVerifies("mesh-two-step", kind, n, p,
                       label("mesh-two-step", kind, n, " per device " + std::to_string(perDevice)));
    }
}

TEST(LoweringSweep, SingleStepAndShotsVerifyForEveryN) {
  for (int n : sweepSizes())
    for (const char *algorithm : {"mesh-single-step", "one-shot", "two-shot"})
      expectVerifies(algorithm, CollectiveKind::AllReduce, n, {},
                     label(algorithm, CollectiveKind::AllReduce, n));
}

TEST(LoweringSweep, HierarchicalVerifiesForEveryN) {
  for (int n : sweepSizes())
    for (int perNode : {1, 2, 3, 4, 8}) {
      if (n % perNode != 0 || perNode > n) continue;
      for (const std::string inter : {"ring", "recursive-doubling"}) {
        AlgorithmParams p = paramsOf(
            "hierarchical", {"ranks-per-node=" + std::to_string(perNode), "inter=" + inter});
        expectVerifies("hierarchical", CollectiveKind::AllReduce, n, p,
                       label("hierarchical", CollectiveKind::AllReduce, n,
                             " per node " + std::to_string(perNode) + " inter " + inter));
      }
    }
}

TEST(LoweringSweep, TopologyDrivenGroupsVerify) {
  Topology torus = torus2d(3, 3, 2);  // 9 chips of 2 ranks, ring order along a Hamiltonian cycle
  for (CollectiveKind kind : kRingKinds) {
    expectVerifies("kangaring", kind, 18, paramsOf("kangaring", {}, &torus),
                   label("kangaring", kind, 18, " on torus 3x3x2"));
    expectVerifies("mesh-two-step", kind, 18, paramsOf("mesh-two-step", {}, &torus),
                   label("mesh-two-step", kind, 18, " on torus 3x3x2"));
  }
  Topology cluster = fatTree(3, 4, 1);  // 3 nodes of 4 ranks
  for (const std::string inter : {"ring", "recursive-doubling"})
    expectVerifies("hierarchical", CollectiveKind::AllReduce, 12,
                   paramsOf("hierarchical", {"inter=" + inter}, &cluster),
                   "hierarchical on fat tree 3x4, inter " + inter);
}

/// Memory touches per chunk per two ranks: how much the touches per data unit
/// (totalTouches / units, units = chunks x slices of the schedule) grow when two ranks join the
/// ring, i.e. the touches of one ring hop per chunk, counted over two ranks. Ring allgather:
/// 2(N-1) per unit (each of the N-1 hops a read and a write), growing by 4; fused ring
/// reduce-scatter: 3N-1 per unit (2 reads + 1 write per rank), growing by 6. KangaRing counts
/// one hop per pair: allgather (3N-1)/2 per unit, growing by 3 (write into the primary, its
/// read, the duplicated write into the secondary); reduce-scatter 2N-1 per unit, growing by 4
/// (3 reads: received partial, own, secondary's; 1 write downstream).
double touchesPerUnit(const std::string &algorithm, CollectiveKind kind, int n,
                      const AlgorithmParams &p) {
  ScheduleCost cost = costOf(algorithm, kind, n, p);
  return double(cost.totalTouches()) * cost.unitFraction;
}

double touchesPerChunkPerTwoRanks(const std::string &algorithm, CollectiveKind kind, int n,
                                  const AlgorithmParams &p) {
  return touchesPerUnit(algorithm, kind, n + 2, p) - touchesPerUnit(algorithm, kind, n, p);
}

TEST(LoweringCost, KangaRingTouchesThreeAndFourWhereRingTouchesFourAndSix) {
  AlgorithmParams kanga = paramsOf("kangaring");  // two ranks per device, its default
  for (int n : {4, 8, 16, 30}) {
    EXPECT_DOUBLE_EQ(touchesPerChunkPerTwoRanks("ring", CollectiveKind::AllGather, n, {}), 4)
        << n;
    EXPECT_DOUBLE_EQ(touchesPerChunkPerTwoRanks("ring", CollectiveKind::ReduceScatter, n, {}), 6)
        << n;
    EXPECT_DOUBLE_EQ(
        touchesPerChunkPerTwoRanks("kangaring", CollectiveKind::AllGather, n, kanga), 3)
        << n;
    EXPECT_DOUBLE_EQ(
        touchesPerChunkPerTwoRanks("kangaring", CollectiveKind::ReduceScatter, n, kanga), 4)
        << n;
    EXPECT_DOUBLE_EQ(touchesPerUnit("kangaring", CollectiveKind::AllGather, n, kanga),
                     (3.0 * n - 1) / 2)
        << n;
    EXPECT_DOUBLE_EQ(touchesPerUnit("kangaring", CollectiveKind::ReduceScatter, n, kanga),
                     2.0 * n - 1)
        << n;
  }
}

TEST(LoweringErrors, KangaRingRejectsOddRanksPerDevice) {
  EXPECT_EQ(lowerError("kangaring", CollectiveKind::AllGather, 6,
                       paramsOf("kangaring", {"ranks-per-device=3"})),
            "KangaRing pairs the ranks of a device into primary and secondary, so it needs an "
            "even number of ranks per device (got 3)");
  EXPECT_EQ(lowerError("kangaring", CollectiveKind::AllReduce, 5, paramsOf("kangaring")),
            "ranks per device 2 does not divide 5 ranks");
  Topology odd = torus2d(2, 2, 3);
  EXPECT_NE(lowerError("kangaring", CollectiveKind::AllGather, 12,
                       paramsOf("kangaring", {}, &odd))
                .find("needs an even number of ranks per device (got 3)"),
            std::string::npos);
}

TEST(LoweringErrors, KangaRingOrder) {
  EXPECT_EQ(lowerError("kangaring", CollectiveKind::AllGather, 8,
                       paramsOf("kangaring", {"order=0,2,2,1,3,4,5,6"})),
            "ring order [0, 2, 2, 1, 3, 4, 5, 6] is not a permutation of 0..7");
  // A valid rank order sets the device order (by first appearance): devices 2, 0, 3, 1.
  expectVerifies("kangaring", CollectiveKind::AllReduce, 8,
                 paramsOf("kangaring", {"order=4,5,0,1,6,7,2,3"}), "kangaring with a rank order");
}

TEST(LoweringErrors, MeshTwoStepRejectsUnequalDevices) {
  Topology torus = torus2d(2, 2, 2);
  torus.devices[1].ranks.pop_back();  // rank 3 moves from chip 1 to chip 0
  torus.devices[0].ranks.push_back(3);
  torus.finalize();
  std::string error = lowerError("mesh-two-step", CollectiveKind::AllReduce, 8,
                                 paramsOf("mesh-two-step", {}, &torus));
  EXPECT_NE(error.find("mesh-two-step needs the same number of ranks on every device"),
            std::string::npos)
      << error;
  EXPECT_EQ(lowerError("mesh-two-step", CollectiveKind::AllGather, 8,
                       paramsOf("mesh-two-step", {"ranks-per-device=3"})),
            "ranks per device 3 does not divide 8 ranks");
}

TEST(LoweringErrors, ShotsAndSingleStepOnlyAllreduce) {
  EXPECT_EQ(lowerError("one-shot", CollectiveKind::AllGather, 4, {}),
            "algorithm 'one-shot' does not implement allgather (it implements: allreduce)");
  EXPECT_EQ(lowerError("mesh-single-step", CollectiveKind::ReduceScatter, 4, {}),
            "algorithm 'mesh-single-step' does not implement reduce_scatter (it implements: "
            "allreduce)");
}

TEST(LoweringErrors, HierarchicalParameters) {
  auto error = [](const std::vector<std::string> &assignments) {
    return lowerError("hierarchical", CollectiveKind::AllReduce, 8,
                      paramsOf("hierarchical", assignments));
  };
  EXPECT_EQ(error({"ranks-per-node=3"}), "ranks per node 3 does not divide 8 ranks");
  EXPECT_EQ(error({}), "ranks per node is 0 (take it from the topology) but no topology is "
                       "given: set ranks-per-node or topology");
  EXPECT_EQ(paramError("hierarchical", "ranks-per-node=-2"),
            "ranks-per-node=-2: \"-2\" is below the minimum of 0");
  EXPECT_EQ(paramError("hierarchical", "inter=tree").find(
                "inter=tree: \"tree\" is not a registered algorithm (known: "),
            0u);
  EXPECT_EQ(error({"ranks-per-node=4", "inter=pairwise"}),
            "inter-node algorithm 'pairwise' does not implement allreduce (it implements: "
            "alltoall)");
  EXPECT_EQ(error({"ranks-per-node=4", "intra=one-shot"}),
            "intra-node algorithm 'one-shot' does not implement reduce_scatter (it implements: "
            "allreduce)");
  EXPECT_EQ(lowerError("hierarchical", CollectiveKind::AllReduce, 6,
                       paramsOf("hierarchical", {"ranks-per-node=2", "inter=kangaring"})),
            "inter-node algorithm 'kangaring' cannot allreduce over 3 ranks: ranks per device 2 "
            "does not divide 3 ranks");
  EXPECT_EQ(error({"ranks-per-node=4", "inter=hierarchical"}),
            "inter-node algorithm 'hierarchical' cannot allreduce over 2 ranks: ranks per node "
            "is 0 (take it from the topology) but no topology is given: set ranks-per-node or "
            "topology");
}

/// The stages are any registered algorithm that implements their collective: inter-node
/// allreduces it could not use when it knew only ring and recursive doubling, and other
/// intra-node algorithms, all verify (determinism included).
TEST(LoweringSweep, HierarchicalComposesAnyRegisteredStage) {
  const std::vector<std::string> inters = {"rabenseifner", "binomial-tree", "double-binary-tree",
                                           "mesh-two-step", "two-shot", "rdh", "kangaring"};
  const std::vector<std::string> intras = {"mesh-two-step", "ring", "line", "rdh"};
  int cases = 0;
  for (auto [perNode, nodes] : std::vector<std::pair<int, int>>{{2, 2}, {2, 4}, {4, 2}, {2, 3}})
    for (const std::string &inter : inters)
      for (const std::string &intra : intras) {
        const int n = perNode * nodes;
        AlgorithmParams p = paramsOf("hierarchical", {"ranks-per-node=" + std::to_string(perNode),
                                                      "intra=" + intra, "inter=" + inter});
        const std::string what = label("hierarchical", CollectiveKind::AllReduce, n,
                                       " intra " + intra + " inter " + inter);
        const std::string error = lowerError("hierarchical", CollectiveKind::AllReduce, n, p);
        if (error.find("cannot") != std::string::npos) continue;  // e.g. KangaRing on 3 nodes
        EXPECT_EQ(error, "") << what;
        expectVerifies("hierarchical", CollectiveKind::AllReduce, n, p, what);
        ++cases;
      }
  EXPECT_GE(cases, 100);
}

}  // namespace

namespace {

/// α-rounds and β of `algorithm` for N ranks.
void expectAlphaBeta(const std::string &algorithm, CollectiveKind kind, int n,
                     const AlgorithmParams &p, int64_t rounds, double beta) {
  ScheduleCost cost = costOf(algorithm, kind, n, p);
  EXPECT_EQ(cost.alphaRounds, rounds) << label(algorithm, kind, n);
  EXPECT_NEAR(cost.beta, beta, 1e-12) << label(algorithm, kind, n);
}

int log2Floor(int k) {
  int bits = 0;
  while ((2 << bits) <= k) ++bits;
  return bits;
}

/// One-shot: every rank reads the N-1 peers' whole buffers. On hardware these reads run at once
/// (one step), but under coll-cost's port model a rank receives one message per round, so the
/// N-1 remote operands take at least N-1 rounds of M. coll-cost brings a reduction's remote
/// operands nearest upstream rank first, so round k pairs every rank with the one k behind it:
/// α = β = N-1 for every N. Two-shot: the reduce-scatter reads N-1 chunks of M/N, the allgather
/// N-1 more: α = 2(N-1), β = 2(N-1)/N.
TEST(LoweringCost, ShotsUnderThePortModel) {
  for (int n = 2; n <= 17; ++n) {
    expectAlphaBeta("one-shot", CollectiveKind::AllReduce, n, {}, n - 1, n - 1);
    expectAlphaBeta("two-shot", CollectiveKind::AllReduce, n, {}, 2 * (n - 1),
                    2.0 * (n - 1) / n);
    EXPECT_NEAR(costOf("two-shot", CollectiveKind::AllReduce, n, {}).bytesMoved, 2.0 * (n - 1),
                1e-12)
        << n;
  }
}

/// Mesh single-step: each rank's dup writes its whole input to N-1 peers through its one send
/// port: α = N-1, β = N-1. Two-step, D devices of R ranks. Reduce-scatter: one message per
/// peer device (the R chunks of its ranks, adjacent), then R-1 intra-device messages:
/// α = (D-1) + (R-1). Allgather: a rank sends its block to the same-index rank of each peer
/// device (D-1 messages), then the D blocks it holds to each of its R-1 device peers; those
/// blocks lie R apart in the output, so they travel as D messages each: α = (D-1) + (R-1)D =
/// N-1. Every message is M/N: β = (N-1)/N; allreduce is the sum of the two.
TEST(LoweringCost, MeshUnderThePortModel) {
  for (int n : {2, 3, 4, 6, 8, 12, 16}) {
    expectAlphaBeta("mesh-single-step", CollectiveKind::AllReduce, n, {}, n - 1, n - 1.0);
    for (int perDevice : {1, 2, 4}) {
      if (n % perDevice != 0) continue;
      AlgorithmParams p =
          paramsOf("mesh-two-step", {"ranks-per-device=" + std::to_string(perDevice)});
      const int devices = n / perDevice;
      const int scatterRounds = (devices - 1) + (perDevice - 1);
      expectAlphaBeta("mesh-two-step", CollectiveKind::ReduceScatter, n, p, scatterRounds,
                      (n - 1.0) / n);
      expectAlphaBeta("mesh-two-step", CollectiveKind::AllGather, n, p, n - 1, (n - 1.0) / n);
      expectAlphaBeta("mesh-two-step", CollectiveKind::AllReduce, n, p, scatterRounds + n - 1,
                      2.0 * (n - 1) / n);
    }
  }
}

/// KangaRing: two lanes of half the data each (separate slices, so separate messages). A
/// lane's ring over the N/2 primaries takes N/2 - 1 steps per phase; the port model
/// interleaves the two lanes. Reduce-scatter: the secondary's remote read adds its round:
/// α = N. Allgather: the blocks a primary hands its secondary are not adjacent in the output,
/// so each is a message of its own, one per round into the secondary: α = 2(N-1). β is the
/// ring's plus the secondary's share.
TEST(LoweringCost, KangaRingUnderThePortModel) {
  AlgorithmParams p = paramsOf("kangaring");
  for (int n : {4, 6, 8, 16}) {
    expectAlphaBeta("kangaring", CollectiveKind::AllGather, n, p, 2 * (n - 1), (n - 1.0) / n);
    expectAlphaBeta("kangaring", CollectiveKind::ReduceScatter, n, p, n,
                    (2.0 * n - 1) / (2 * n));
    expectAlphaBeta("kangaring", CollectiveKind::AllReduce, n, p, 2 * (n - 1),
                    2.0 * (n - 1) / n);
  }
}

/// Hierarchical over K nodes of L ranks. Ring inter: the message is cut into N = L·K chunks, so
/// the intra-node phases move K chunks of M/N to each of L-1 peers ((L-1)·K rounds each) and
/// the inter-node ring takes 2(K-1) rounds: α = 2(L-1)K + 2(K-1), β = 2(N-1)/N (the ring's).
/// Recursive doubling (K a power of two): L chunks; α = 2(L-1) + log2 K,
/// β = 2(L-1)/L + log2(K)/L; otherwise two more rounds of M/L fold the extra nodes in and out.
TEST(LoweringCost, HierarchicalUnderThePortModel) {
  for (auto [l, k] : std::vector<std::pair<int, int>>{{2, 2}, {2, 4}, {4, 2}, {4, 4}, {2, 3},
                                                      {4, 5}, {8, 8}}) {
    int n = l * k;
    AlgorithmParams p = paramsOf("hierarchical", {"ranks-per-node=" + std::to_string(l)});
    // The intra-node phases join each peer's K chunks into one message per step, and the
    // list scheduler overlaps them with the inter-node ring: α lies between the phases'
    // lower bound 2(L-1) + 2(K-1) and the one-message-per-chunk count 2(L-1)K + 2(K-1).
    ScheduleCost ring = costOf("hierarchical", CollectiveKind::AllReduce, n, p);
    EXPECT_GE(ring.alphaRounds, 2 * (l - 1) + 2 * (k - 1)) << label("hierarchical", CollectiveKind::AllReduce, n);
    EXPECT_LE(ring.alphaRounds, 2 * (l - 1) * k + 2 * (k - 1)) << label("hierarchical", CollectiveKind::AllReduce, n);
    EXPECT_NEAR(ring.beta, 2.0 * (n - 1) / n, 1e-12) << label("hierarchical", CollectiveKind::AllReduce, n);
    p.set("inter", "recursive-doubling");
    int fold = (k & (k - 1)) == 0 ? 0 : 2;
    expectAlphaBeta("hierarchical", CollectiveKind::AllReduce, n, p,
                    2 * (l - 1) + log2Floor(k) + fold,
                    2.0 * (l - 1) / l + double(log2Floor(k) + fold) / l);
  }
}

}  // namespace
