// Sweep and cost tests of the flat, tree, rdh and pairwise lowerings: every algorithm x kind
// verifies (with determinism) for N = 2..33 and 64, and costs match the textbook α-β figures.
#include "ScheduleTestSupport.h"

#include "compiler/analysis/CostModel.h"
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/lowering/Algorithms.h"
#include "runtime/topology/Generators.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace collplan;
using collplan::testing::IRFixture;
using collplan::testing::paramError;
using collplan::testing::paramsOf;

namespace {

std::vector<int> sweepSizes() {
  std::vector<int> sizes;
  for (int n = 2; n <= 33; ++n) sizes.push_back(n);
  sizes.push_back(64);
  return sizes;
}

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter ||
         kind == CollectiveKind::Reduce;
}

CollectiveSpec specFor(CollectiveKind kind, int ranks, int root = 0) {
  CollectiveSpec spec;
  spec.kind = kind;
  spec.ranks = ranks;
  if (reduces(kind)) spec.op = ReduceOp::Sum;
  if (needsRoot(kind)) spec.root = root;
  return spec;
}

/// A module holding the schedule of one algorithm, or the error that prevented it.
struct Lowered {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::coll::ScheduleOp schedule;
  std::string error;
};

Lowered lower(IRFixture &f, const std::string &algorithm, const CollectiveSpec &spec,
              const AlgorithmParams &params = {}) {
  Lowered out;
  mlir::OpBuilder builder(&f.context());
  out.module = mlir::ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(out.module->getBody());
  const AlgorithmInfo *info = findAlgorithm(algorithm);
  if (!info) {
    out.error = "no algorithm " + algorithm;
    return out;
  }
  auto schedule = buildSchedule(builder, builder.getUnknownLoc(), spec, "s", *info, params,
                                out.error);
  if (mlir::succeeded(schedule)) out.schedule = *schedule;
  return out;
}

/// Lowers and verifies; the returned text is empty on success, else what went wrong.
std::string lowerAndVerify(const std::string &algorithm, const CollectiveSpec &spec,
                           const AlgorithmParams &params = {}) {
  IRFixture f;
  Lowered l = lower(f, algorithm, spec, params);
  if (!l.schedule) return "lowering failed: " + l.error;
  if (mlir::failed(mlir::verify(*l.module))) return "op verifier failed";
  if (mlir::failed(verifySchedule(l.schedule))) {
    std::string text = "coll-verify failed:";
    for (const std::string &d : f.diagnostics()) text += "\n  " + d;
    return text;
  }
  if (!f.diagnostics().empty()) return "unexpected diagnostic: " + f.diagnostics().front();
  return "";
}

/// Rounds counted from the algorithm's own `step` attributes, where one message is everything
/// a rank sends to one peer in one step (the textbook's unit). Fails the test when a rank
/// talks to two peers in one step (the port model allows one send and one receive).
int64_t stepRounds(mlir::coll::ScheduleOp schedule) {
  std::map<int64_t, std::set<std::pair<int, int>>> messages;  // step -> {(from, to)}
  llvm::DenseMap<mlir::Value, int> rankOf;
  auto record = [&](mlir::Operation *op, int from, int to) {
    if (from == to) return;
    auto step = op->getAttrOfType<mlir::IntegerAttr>("step");
    EXPECT_TRUE(step) << "transfer without a step";
    if (step) messages[step.getInt()].insert({from, to});
  };
  for (mlir::Operation &op : schedule.getBodyBlock()) {
    if (auto in = llvm::dyn_cast<mlir::coll::InputOp>(op)) {
      rankOf[in.getResult()] = int(in.getRank());
    } else if (auto copy = llvm::dyn_cast<mlir::coll::CopyOp>(op)) {
      record(&op, rankOf[copy.getSrc()], int(copy.getRank()));
      rankOf[copy.getResult()] = int(copy.getRank());
    } else if (auto red = llvm::dyn_cast<mlir::coll::ReduceOp>(op)) {
      rankOf[red.getResult()] = int(red.getRank());
    } else if (auto rs = llvm::dyn_cast<mlir::coll::ReduceSendOp>(op)) {
      record(&op, int(rs.getRank()), int(rs.getDest()));
      rankOf[rs.getResult()] = int(rs.getDest());
    }
  }
  for (auto &[step, pairs] : messages) {
    std::map<int, int> sends, receives;
    for (auto [from, to] : pairs) {
      EXPECT_EQ(++sends[from], 1) << "rank " << from << " sends to two peers in step " << step;
      EXPECT_EQ(++receives[to], 1) << "rank " << to << " hears from two peers in step " << step;
    }
  }
  return int64_t(messages.size());
}

int ceilLog2(int n) { return int(std::ceil(std::log2(double(n)) - 1e-9)); }
int log2Exact(int n) { return int(std::lround(std::log2(double(n)))); }

// ---- the sweep -----------------------------------------------------------------------------

/// Every registered algorithm x kind, with the parameters the sweeps give it (its entry's
/// example), wherever they apply (KangaRing: even N; hierarchical: N divisible by 2).
TEST(LoweringSweep, EveryAlgorithmAndKindVerifiesFor2To33And64Ranks) {
  int cases = 0;
  for (const AlgorithmInfo &algorithm : algorithms()) {
    for (CollectiveKind kind : algorithm.kinds)
      for (int n : sweepSizes()) {
        // Built from stage plans of their own sizes, with no level-2 schedule: CompositionTest
        // proves them, the compiled-plan sweeps run them.
        if (std::count(algorithm.composedKinds.begin(), algorithm.composedKinds.end(), kind))
          continue;
        const auto params = collplan::testing::sweepParamsFor(algorithm, kind, n);
        if (!params) continue;
        std::vector<int> roots = {0};
        if (needsRoot(kind)) roots.push_back(n - 1);
        for (int root : roots) {
          std::string problem = lowerAndVerify(algorithm.name, specFor(kind, n, root),
                                               paramsOf(algorithm.name, *params));
          EXPECT_EQ(problem, "") << algorithm.name << " " << toString(kind) << " N=" << n
                                 << " root " << root;
          ++cases;
        }
      }
  }
  // 19 algorithms, 36 algorithm x kind pairs; KangaRing and hierarchical at about half the N.
  EXPECT_GE(cases, 33 * int(sweepSizes().size()));
}

TEST(ClassicLoweringSweep, PipelinedTreeFanoutsAndPipelines) {
  for (int fanout : {2, 3, 4, 7})
    for (int pipeline : {1, 3})
      for (CollectiveKind kind :
           {CollectiveKind::Broadcast, CollectiveKind::Reduce, CollectiveKind::AllReduce})
        for (int n : {2, 5, 9, 16, 33}) {
          AlgorithmParams p = paramsOf("pipelined-tree", {"fanout=" + std::to_string(fanout),
                                                          "pipeline=" + std::to_string(pipeline)});
          EXPECT_EQ(lowerAndVerify("pipelined-tree", specFor(kind, n, n / 2), p), "")
              << "fanout " << fanout << " pipeline " << pipeline << " " << toString(kind)
              << " N=" << n;
        }
}

TEST(ClassicLoweringSweep, RdhOverDimsAndDevices) {
  struct Case {
    int ranks, perDevice;
    std::vector<int> dims;
  };
  std::vector<Case> cases = {{16, 1, {4, 4}},  {16, 2, {2, 4}}, {32, 2, {4, 4}},
                             {64, 4, {4, 4}},  {12, 2, {3, 2}}, {24, 3, {2, 2, 2}},
                             {30, 1, {5, 3, 2}}, {18, 2, {3, 3}}, {64, 1, {2, 2, 2, 2, 2, 2}},
                             {6, 6, {}},       {20, 4, {}}};
  for (const Case &c : cases)
    for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
                                CollectiveKind::AllGather}) {
      std::string dims;
      for (int d : c.dims) dims += (dims.empty() ? "" : ",") + std::to_string(d);
      AlgorithmParams p = paramsOf("rdh", {"ranks-per-device=" + std::to_string(c.perDevice),
                                           "dims=" + dims});
      EXPECT_EQ(lowerAndVerify("rdh", specFor(kind, c.ranks), p), "")
          << toString(kind) << " N=" << c.ranks << " per device " << c.perDevice;
    }
}

TEST(ClassicLoweringSweep, RdhFromTopology) {
  for (auto [x, y, perChip] : std::vector<std::tuple<int, int, int>>{{4, 4, 4}, {2, 3, 2}, {4, 2, 1}}) {
    Topology topo = torus2d(x, y, perChip);
    AlgorithmParams p = paramsOf("rdh", {}, &topo);
    for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
                                CollectiveKind::AllGather})
      EXPECT_EQ(lowerAndVerify("rdh", specFor(kind, topo.numRanks()), p), "")
          << toString(kind) << " torus " << x << "x" << y << "x" << perChip;
  }
}

// ---- cost against the textbook -------------------------------------------------------------

struct Figures {
  int64_t rounds = 0;      ///< analyzeCost's α rounds
  double beta = 0;         ///< analyzeCost's β coefficient
  int64_t stepRounds = 0;  ///< rounds by the algorithm's own steps (messages per peer)
};

Figures figures(const std::string &algorithm, CollectiveKind kind, int n, int root = 0) {
  IRFixture f;
  Lowered l = lower(f, algorithm, specFor(kind, n, root));
  EXPECT_TRUE(l.schedule) << l.error;
  if (!l.schedule) return {};
  ScheduleCost cost = analyzeCost(l.schedule);
  return {cost.alphaRounds, cost.beta, stepRounds(l.schedule)};
}

TEST(ClassicLoweringCost, FlatBaselines) {
  for (int n : {2, 3, 5, 8, 13}) {
    for (CollectiveKind kind : {CollectiveKind::Gather, CollectiveKind::Scatter}) {
      Figures c = figures("flat", kind, n, n / 2);
      EXPECT_EQ(c.rounds, n - 1) << toString(kind) << " N=" << n;
      EXPECT_DOUBLE_EQ(c.beta, double(n - 1) / n) << toString(kind) << " N=" << n;
      EXPECT_EQ(c.stepRounds, n - 1);
    }
    for (CollectiveKind kind : {CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
      Figures c = figures("flat", kind, n, n - 1);
      EXPECT_EQ(c.rounds, n - 1) << toString(kind) << " N=" << n;
      EXPECT_DOUBLE_EQ(c.beta, double(n - 1)) << toString(kind) << " N=" << n;
      EXPECT_EQ(c.stepRounds, n - 1);
    }
  }
}

TEST(ClassicLoweringCost, BinomialTree) {
  for (int n : sweepSizes()) {
    for (CollectiveKind kind : {CollectiveKind::Broadcast, CollectiveKind::Reduce})
      for (int root : {0, n / 3, n - 1}) {
        Figures c = figures("binomial-tree", kind, n, root);
        EXPECT_EQ(c.rounds, ceilLog2(n)) << toString(kind) << " N=" << n << " root " << root;
        EXPECT_DOUBLE_EQ(c.beta, ceilLog2(n)) << toString(kind) << " N=" << n;
        EXPECT_EQ(c.stepRounds, ceilLog2(n)) << toString(kind) << " N=" << n;
      }
    Figures ar = figures("binomial-tree", CollectiveKind::AllReduce, n);
    EXPECT_EQ(ar.rounds, 2 * ceilLog2(n)) << n;
    EXPECT_DOUBLE_EQ(ar.beta, 2 * ceilLog2(n)) << n;
    EXPECT_EQ(ar.stepRounds, 2 * ceilLog2(n)) << n;
  }
}

TEST(ClassicLoweringCost, RecursiveDoublingAllreduce) {
  for (int n : {2, 4, 8, 16, 32, 64}) {
    Figures c = figures("recursive-doubling", CollectiveKind::AllReduce, n);
    EXPECT_EQ(c.rounds, log2Exact(n)) << n;
    EXPECT_DOUBLE_EQ(c.beta, log2Exact(n)) << n;
    EXPECT_EQ(c.stepRounds, log2Exact(n)) << n;
  }
  // Other counts: one round to fold the extra ranks in, one to send them the result. (The
  // port model's list scheduler may give one round more here: ranks outside the fold start
  // exchanging early and take a folded rank's receive port first.)
  for (int n : {3, 6, 12, 33}) {
    Figures c = figures("recursive-doubling", CollectiveKind::AllReduce, n);
    EXPECT_EQ(c.stepRounds, int(std::log2(n)) + 2) << n;
  }
}

/// Halving, doubling and Rabenseifner send several blocks to one peer per round; the port
/// model joins the blocks of one step between two ranks into one message, so α is the
/// textbook's log2 N per phase, as are the algorithm's own steps. β sums the block sizes.
TEST(ClassicLoweringCost, RecursiveHalvingDoublingAndRabenseifner) {
  for (int n : {2, 4, 8, 16, 32}) {
    int lg = log2Exact(n);
    double share = double(n - 1) / n;

    Figures rs = figures("recursive-halving", CollectiveKind::ReduceScatter, n);
    EXPECT_EQ(rs.stepRounds, lg) << n;
    EXPECT_DOUBLE_EQ(rs.beta, share) << n;
    EXPECT_EQ(rs.rounds, lg) << n;

    Figures ag = figures("recursive-doubling", CollectiveKind::AllGather, n);
    EXPECT_EQ(ag.stepRounds, lg) << n;
    EXPECT_DOUBLE_EQ(ag.beta, share) << n;
    EXPECT_EQ(ag.rounds, lg) << n;

    Figures rab = figures("rabenseifner", CollectiveKind::AllReduce, n);
    EXPECT_EQ(rab.stepRounds, 2 * lg) << n;
    EXPECT_DOUBLE_EQ(rab.beta, 2 * share) << n;
    EXPECT_EQ(rab.rounds, 2 * lg) << n;

    Figures rdh = figures("rdh", CollectiveKind::AllReduce, n);
    EXPECT_EQ(rdh.stepRounds, 2 * lg) << n;
    EXPECT_DOUBLE_EQ(rdh.beta, 2 * share) << n;
    EXPECT_EQ(rdh.rounds, 2 * lg) << n;
  }
}

TEST(ClassicLoweringCost, PairwiseAllToAllAndBarriers) {
  for (int n : {2, 3, 4, 5, 8, 12, 16, 33}) {
    Figures a2a = figures("pairwise", CollectiveKind::AllToAll, n);
    EXPECT_EQ(a2a.rounds, n - 1) << n;
    EXPECT_NEAR(a2a.beta, double(n - 1) / n, 1e-12) << n;
    EXPECT_EQ(a2a.stepRounds, n - 1) << n;

    Figures dis = figures("dissemination", CollectiveKind::Barrier, n);
    EXPECT_EQ(dis.rounds, ceilLog2(n)) << n;
    EXPECT_EQ(dis.stepRounds, ceilLog2(n)) << n;

    Figures pb = figures("pairwise-barrier", CollectiveKind::Barrier, n);
    int pow2 = 1 << int(std::log2(n));
    int expected = log2Exact(pow2) + (pow2 == n ? 0 : 2);
    EXPECT_EQ(pb.stepRounds, expected) << n;
    if (pow2 == n) {  // folded counts: see RecursiveDoublingAllreduce
      EXPECT_EQ(pb.rounds, expected) << n;
    }
  }
}

TEST(ClassicLoweringCost, DoubleBinaryTreeSplitsTheData) {
  // Each tree carries half of the message, pipelined in 4 chunks: every transfer is 1/8 of M.
  for (int n : {4, 7, 16}) {
    IRFixture f;
    Lowered l = lower(f, "double-binary-tree", specFor(CollectiveKind::AllReduce, n));
    ASSERT_TRUE(l.schedule) << l.error;
    ScheduleCost cost = analyzeCost(l.schedule);
    EXPECT_DOUBLE_EQ(cost.unitFraction, 1.0 / 8);
    // Reduce and broadcast move every slice over every edge of its tree once: 2(N-1) per slice.
    EXPECT_DOUBLE_EQ(cost.bytesMoved, 2.0 * (n - 1)) << n;
  }
}

// ---- bad parameters ------------------------------------------------------------------------

std::string errorOf(const std::string &algorithm, const CollectiveSpec &spec,
                    const AlgorithmParams &params) {
  IRFixture f;
  Lowered l = lower(f, algorithm, spec, params);
  EXPECT_FALSE(l.schedule) << algorithm << " accepted bad parameters";
  return l.error;
}

TEST(ClassicLoweringErrors, BadParametersAreExplained) {
  EXPECT_EQ(paramError("pipelined-tree", "fanout=1"),
            "fanout=1: \"1\" is below the minimum of 2");
  EXPECT_EQ(paramError("double-binary-tree", "pipeline=0"),
            "pipeline=0: \"0\" is below the minimum of 1");
  EXPECT_EQ(errorOf("rdh", specFor(CollectiveKind::AllReduce, 16),
                    paramsOf("rdh", {"dims=2,3", "ranks-per-device=2"})),
            "dims [2, 3] give 6 devices, but 16 ranks / 2 ranks per device = 8 devices");
  EXPECT_EQ(paramError("rdh", "dims=4,0"),
            "dims=4,0: in \"4,0\": \"0\" is below the minimum of 1");
  EXPECT_EQ(errorOf("rdh", specFor(CollectiveKind::ReduceScatter, 16),
                    paramsOf("rdh", {"ranks-per-device=3"})),
            "ranks per device 3 does not divide 16 ranks");
  Topology topo = torus2d(2, 2, 4);
  EXPECT_EQ(errorOf("rdh", specFor(CollectiveKind::AllReduce, 16),
                    paramsOf("rdh", {"ranks-per-device=2"}, &topo)).find(
                "ranks per device 2 disagrees with topology"),
            0u);
  EXPECT_NE(errorOf("pairwise", specFor(CollectiveKind::AllReduce, 4), {})
                .find("algorithm 'pairwise' does not implement allreduce"),
            std::string::npos);
}

}  // namespace
