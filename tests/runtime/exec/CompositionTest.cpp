// Hierarchical allreduces composed from stage plans: proven for every shape tried, one rank's
// program built alone equals the whole plan's, the "composed" file form round-trips (JSON, CBOR,
// one rank's load), results match the reference on cpu-threads, and stages or files that do not
// compose are refused with the stage or field and the reason.
#include "ExecTestSupport.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

/// One choice of stage schedules, built for L ranks per node and K nodes.
struct StageChoice {
  const char *name;
  std::function<HierarchicalStages(int L, int K, ReduceOp op)> make;
};

const std::vector<StageChoice> &stageChoices() {
  static const std::vector<StageChoice> choices = {
      {"ring / ring / ring",
       [](int L, int K, ReduceOp op) {
         return HierarchicalStages{L, ringReduceScatterPlan(L, op), ringAllReducePlan(K, op),
                                   ringAllGatherPlan(L)};
       }},
      {"recursive halving / recursive doubling / recursive doubling",
       [](int L, int K, ReduceOp op) {
         return HierarchicalStages{L, recursiveHalvingReduceScatterPlan(L, op),
                                   recursiveDoublingAllReducePlan(K, op),
                                   recursiveDoublingAllGatherPlan(L)};
       }},
      {"ring / two-shot / recursive doubling",
       [](int L, int K, ReduceOp op) {
         return HierarchicalStages{L, ringReduceScatterPlan(L, op), twoShotAllReducePlan(K, op),
                                   recursiveDoublingAllGatherPlan(L)};
       }},
  };
  return choices;
}

bool sameProgram(const RankProgram &a, const RankProgram &b) {
  if (a.channels.size() != b.channels.size()) return false;
  for (size_t c = 0; c < a.channels.size(); ++c) {
    const std::vector<PlanOp> &x = a.channels[c].ops, &y = b.channels[c].ops;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].kind != y[i].kind || x[i].srcs != y[i].srcs || x[i].recv != y[i].recv ||
          x[i].recvPos != y[i].recvPos || x[i].dsts != y[i].dsts || x[i].sends != y[i].sends ||
          x[i].after != y[i].after || x[i].step != y[i].step)
        return false;
  }
  return true;
}

TEST(Composition, EveryShapeProvesAndEachRankBuildsItsOwnProgram) {
  int proven = 0;
  for (const StageChoice &choice : stageChoices())
    for (int L = 1; L <= 5; ++L)
      for (int K = 1; K <= 5; ++K) {
        SCOPED_TRACE(std::string(choice.name) + ": " + std::to_string(K) + " nodes of " +
                     std::to_string(L));
        const HierarchicalStages stages = choice.make(L, K, ReduceOp::Sum);
        const Plan plan = composeHierarchicalAllReduce(stages, K * L);
        EXPECT_EQ(plan.ranks, K * L);
        EXPECT_EQ(plan.algorithm, "hierarchical");
        ASSERT_NO_THROW(validatePlan(plan, "composed"));
        const VerifyResult proof = verifyPlan(plan);
        EXPECT_TRUE(proof.ok()) << proof.describe();
        for (int r = 0; r < K * L; ++r) {
          const Plan one = composeHierarchicalAllReduce(stages, K * L, r);
          EXPECT_EQ(one.onlyRank, r);
          EXPECT_TRUE(sameProgram(one.programs[size_t(r)], plan.programs[size_t(r)])) << "rank " << r;
        }
        ++proven;
      }
  EXPECT_EQ(proven, 75);
}

// A rank's program is its three stage programs: node peers and inter-node peers renamed, each
// stage after the previous one.
TEST(Composition, ARanksProgramIsItsStagesWithPeersRenamed) {
  const HierarchicalStages stages = stageChoices()[0].make(2, 3, ReduceOp::Sum);
  const Plan plan = composeHierarchicalAllReduce(stages, 6);
  // Rank 3 is local rank 1 of node 1: its node peer is rank 2, its inter-node ring runs over
  // ranks 1, 3, 5.
  const std::vector<PlanOp> &ops = plan.programs[3].channels.at(0).ops;
  const size_t rs = stages.intraReduceScatter.programs[1].numOps(),
               ar = stages.interAllReduce.programs[1].numOps(),
               ag = stages.intraAllGather.programs[1].numOps();
  ASSERT_EQ(ops.size(), rs + ar + ag);
  for (size_t i = 0; i < ops.size(); ++i) {
    std::vector<int32_t> peers = ops[i].sends;
    if (ops[i].recv) peers.push_back(*ops[i].recv);
    for (int32_t peer : peers) {
      if (i < rs || i >= rs + ar)
        EXPECT_EQ(peer, 2) << "op " << i;
      else
        EXPECT_TRUE(peer == 1 || peer == 5) << "op " << i << " peer " << peer;
    }
  }
  // The intra-node reduce-scatter reads the input and writes scratch region A; the allgather
  // writes the output.
  for (size_t i = 0; i < rs; ++i)
    for (const BufRef &dst : ops[i].dsts) EXPECT_EQ(dst.buf, BufferKind::Tmp) << "op " << i;
  bool writesOut = false;
  for (size_t i = rs + ar; i < ops.size(); ++i)
    for (const BufRef &dst : ops[i].dsts) writesOut |= dst.buf == BufferKind::Out;
  EXPECT_TRUE(writesOut);
}

TEST(Composition, ResultsMatchTheReferenceOnThreads) {
  for (const auto &[L, K] : std::vector<std::pair<int, int>>{{2, 2}, {3, 2}, {2, 3}}) {
    const int ranks = K * L;
    Bundle bundle;
    bundle.topologyFingerprint = "test";
    bundle.backend = "cpu-threads";
    bundle.ranks = ranks;
    bundle.toolVersion = "test";
    for (int d = 0; d < kNumDTypes; ++d)
      for (int op = 0; op < 4; ++op) {
        BucketTable t;
        t.collective = CollectiveKind::AllReduce;
        t.dtype = DType(d);
        t.op = ReduceOp(op);
        t.buckets.push_back(bucketOf(
            0, std::numeric_limits<uint64_t>::max(),
            composeHierarchicalAllReduce(stageChoices()[1].make(L, K, ReduceOp(op)), ranks)));
        bundle.tables.push_back(std::move(t));
      }
    const std::string path = "/tmp/collplan-composed-" + std::to_string(getpid()) + "-" +
                             std::to_string(ranks) + ".json";
    saveBundleFile(bundle, path);
    World world = World::threads(ranks, path.c_str());
    std::vector<std::string> failures(static_cast<size_t>(ranks));
    world.runThreads([&](Comm &comm) {
      std::string &failure = failures[size_t(comm.rank())];
      for (const CollCase &c : sweepCases(CollectiveKind::AllReduce, ranks)) {
        if (failure.empty()) failure = runAndCheck(comm, c);
        if (failure.empty() && c.count > 0 && comm.lastAlgorithm() != "hierarchical")
          failure = c.describe(ranks) + ": ran " + comm.lastAlgorithm();
      }
    });
    for (size_t r = 0; r < failures.size(); ++r)
      EXPECT_EQ(failures[r], "") << K << " nodes of " << L << ", rank " << r;
    std::remove(path.c_str());
  }
}

TEST(Composition, TheFileStoresTheStagesAndEachRankBuildsItsProgramFromThem) {
  const HierarchicalStages stages = stageChoices()[1].make(3, 4, ReduceOp::Sum);
  const Plan plan = composeHierarchicalAllReduce(stages, 12);
  const nlohmann::json doc = planToJson(plan);
  ASSERT_TRUE(doc.contains("composed"));
  EXPECT_FALSE(doc.contains("programs"));
  EXPECT_EQ(doc["composed"]["ranks_per_node"], 3);
  EXPECT_EQ(doc["composed"]["stages"]["inter_allreduce"]["ranks"], 4);
  const Plan loaded = planFromJson(doc, "composed.json");
  ASSERT_TRUE(loaded.composition);
  for (int r = 0; r < 12; ++r)
    EXPECT_TRUE(sameProgram(loaded.programs[size_t(r)], plan.programs[size_t(r)])) << "rank " << r;
  EXPECT_EQ(planToJson(loaded), doc);
  for (const char *suffix : {".json", ".cbor"}) {
    const std::string path =
        "/tmp/collplan-composed-file-" + std::to_string(getpid()) + suffix;
    savePlanFile(plan, path);
    for (int r : {0, 5, 11}) {
      PlanLoadOptions one;
      one.onlyRank = r;
      const Plan mine = loadPlanFile(path, one);
      EXPECT_EQ(mine.onlyRank, r);
      EXPECT_TRUE(sameProgram(mine.programs[size_t(r)], plan.programs[size_t(r)]))
          << suffix << " rank " << r;
    }
    std::remove(path.c_str());
  }
}

/// The load error of `doc`, or "".
std::string loadError(const nlohmann::json &doc, PlanLoadOptions options = {}) {
  try {
    planFromJson(doc, "c.json", options);
  } catch (const PlanError &e) {
    return e.what();
  }
  return "";
}

TEST(Composition, ComposedFilesThatDoNotComposeAreRefusedByField) {
  const nlohmann::json good =
      planToJson(composeHierarchicalAllReduce(stageChoices()[0].make(2, 2, ReduceOp::Sum), 4));
  EXPECT_EQ(loadError(good), "");
  auto edited = [&](const std::function<void(nlohmann::json &)> &edit) {
    nlohmann::json doc = good;
    edit(doc);
    return loadError(doc);
  };
  EXPECT_NE(edited([](nlohmann::json &d) { d["programs"] = nlohmann::json::array(); })
                .find("composed: a composed plan stores its stage plans, not \"programs\" as well"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) { d["composed"]["stages"].erase("inter_allreduce"); })
                .find("composed.stages.inter_allreduce: missing required field"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) { d["composed"]["ranks_per_node"] = 3; })
                .find("composed: hierarchical allreduce: 4 ranks do not make whole nodes of 3"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) {
              d["composed"]["stages"]["inter_allreduce"]["programs"][0]["channels"][0]["ops"][0]
               ["send"] = {7};
            }).find("composed.stages.inter_allreduce.programs[0].channels[0].ops[0]"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) { d["units"] = 8; })
                .find("units: is 8 but the stages compose to 4 units"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) { d["op"] = "max"; })
                .find("op: the stages reduce with sum"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) {
              d["collective"] = "allgather";
              d.erase("op");
            }).find("collective: a composed plan is an allreduce"),
            std::string::npos);
  // Each stage fits a small limit, the ranks' programs built from them do not.
  PlanLoadOptions tiny;
  tiny.verify = false;
  tiny.maxProofUnits = 8;
  EXPECT_NE(loadError(good, tiny).find("composed: built for every one of its 4 ranks, its stage "
                                       "programs would span more than 32 units"),
            std::string::npos)
      << loadError(good, tiny);
  tiny.onlyRank = 3;  // one rank's load builds one program
  EXPECT_EQ(loadError(good, tiny), "");
}

std::string refusal(const HierarchicalStages &stages, int ranks) {
  try {
    composeHierarchicalAllReduce(stages, ranks);
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}

TEST(Composition, StagesThatDoNotComposeAreRefused) {
  const auto ok = [] { return stageChoices()[0].make(2, 2, ReduceOp::Sum); };
  EXPECT_EQ(refusal(ok(), 4), "");
  EXPECT_NE(refusal(ok(), 5).find("5 ranks do not make whole nodes of 2 ranks"), std::string::npos);
  EXPECT_NE(refusal(ok(), 6).find("the inter-node allreduce plan has 2 ranks where 3 run it"),
            std::string::npos);
  HierarchicalStages wrongKind = ok();
  wrongKind.intraAllGather = ringReduceScatterPlan(2, ReduceOp::Sum);
  EXPECT_NE(refusal(wrongKind, 4).find(
                "the intra-node allgather is a plan for reduce_scatter, not allgather"),
            std::string::npos);
  HierarchicalStages otherOp = ok();
  otherOp.interAllReduce = ringAllReducePlan(2, ReduceOp::Max);
  EXPECT_NE(refusal(otherOp, 4).find("the inter-node allreduce reduces with max but the "
                                     "intra-node reduce-scatter with sum"),
            std::string::npos);
  HierarchicalStages oneRank = ok();
  oneRank.intraReduceScatter = ringReduceScatterPlan(2, ReduceOp::Sum, 1);
  EXPECT_NE(refusal(oneRank, 4).find("plan must hold every rank's program (it was loaded for rank 1 "
                                     "alone)"),
            std::string::npos);
  EXPECT_THROW(composeHierarchicalAllReduce(ok(), 4, 4), std::invalid_argument);
  // One rank's composition needs only the stage programs it takes: rank 2 is local rank 0 of
  // node 1.
  const HierarchicalStages forRank2{2, ringReduceScatterPlan(2, ReduceOp::Sum, 0),
                                    ringAllReducePlan(2, ReduceOp::Sum, 1),
                                    ringAllGatherPlan(2, 0)};
  const Plan whole = composeHierarchicalAllReduce(ok(), 4);
  EXPECT_TRUE(sameProgram(composeHierarchicalAllReduce(forRank2, 4, 2).programs[2],
                          whole.programs[2]));
  try {
    composeHierarchicalAllReduce(forRank2, 4, 3);
    ADD_FAILURE() << "rank 3 composed from rank 0's intra-node programs";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("the intra-node reduce-scatter plan must hold the "
                                         "program of its rank 1 (it was loaded for rank 0 alone)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
