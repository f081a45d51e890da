// Hierarchical allreduces, allgathers and reduce-scatters composed from stage plans: proven for
// every shape tried, one rank's program built alone equals the whole plan's, the "composed" file
// form round-trips (JSON, CBOR, one rank's load), results match the reference on cpu-threads,
// and stages or files that do not compose are refused with the stage or field and the reason.
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
  CollectiveKind kind;
  std::function<HierarchicalStages(int L, int K, ReduceOp op)> make;
};

const std::vector<StageChoice> &stageChoices() {
  static const std::vector<StageChoice> choices = {
      {"ring / ring / ring", CollectiveKind::AllReduce,
       [](int L, int K, ReduceOp op) {
         return allReduceStages(L, ringReduceScatterPlan(L, op), ringAllReducePlan(K, op),
                                ringAllGatherPlan(L));
       }},
      {"recursive halving / recursive doubling / recursive doubling", CollectiveKind::AllReduce,
       [](int L, int K, ReduceOp op) {
         return allReduceStages(L, recursiveHalvingReduceScatterPlan(L, op),
                                recursiveDoublingAllReducePlan(K, op),
                                recursiveDoublingAllGatherPlan(L));
       }},
      {"ring / two-shot / recursive doubling", CollectiveKind::AllReduce,
       [](int L, int K, ReduceOp op) {
         return allReduceStages(L, ringReduceScatterPlan(L, op), twoShotAllReducePlan(K, op),
                                recursiveDoublingAllGatherPlan(L));
       }},
      {"allgather: ring / ring", CollectiveKind::AllGather,
       [](int L, int K, ReduceOp) {
         return allGatherStages(L, ringAllGatherPlan(K), ringAllGatherPlan(L));
       }},
      {"allgather: recursive doubling / ring", CollectiveKind::AllGather,
       [](int L, int K, ReduceOp) {
         return allGatherStages(L, recursiveDoublingAllGatherPlan(K), ringAllGatherPlan(L));
       }},
      {"allgather: ring / recursive doubling", CollectiveKind::AllGather,
       [](int L, int K, ReduceOp) {
         return allGatherStages(L, ringAllGatherPlan(K), recursiveDoublingAllGatherPlan(L));
       }},
      {"reduce-scatter: ring / ring", CollectiveKind::ReduceScatter,
       [](int L, int K, ReduceOp op) {
         return reduceScatterStages(L, ringReduceScatterPlan(L, op), ringReduceScatterPlan(K, op));
       }},
      {"reduce-scatter: recursive halving / ring", CollectiveKind::ReduceScatter,
       [](int L, int K, ReduceOp op) {
         return reduceScatterStages(L, recursiveHalvingReduceScatterPlan(L, op),
                                    ringReduceScatterPlan(K, op));
       }},
      {"reduce-scatter: ring / recursive halving", CollectiveKind::ReduceScatter,
       [](int L, int K, ReduceOp op) {
         return reduceScatterStages(L, ringReduceScatterPlan(L, op),
                                    recursiveHalvingReduceScatterPlan(K, op));
       }},
  };
  return choices;
}

/// The first stage choice of `kind`.
const StageChoice &firstChoice(CollectiveKind kind) {
  for (const StageChoice &choice : stageChoices())
    if (choice.kind == kind) return choice;
  throw std::logic_error("no stage choice");
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
        const Plan plan = composeHierarchical(stages, K * L);
        EXPECT_EQ(plan.collective, choice.kind);
        EXPECT_EQ(plan.ranks, K * L);
        EXPECT_EQ(plan.algorithm, "hierarchical");
        ASSERT_NO_THROW(validatePlan(plan, "composed"));
        const VerifyResult proof = verifyPlan(plan);
        EXPECT_TRUE(proof.ok()) << proof.describe();
        for (int r = 0; r < K * L; ++r) {
          const Plan one = composeHierarchical(stages, K * L, r);
          EXPECT_EQ(one.onlyRank, r);
          EXPECT_TRUE(sameProgram(one.programs[size_t(r)], plan.programs[size_t(r)])) << "rank " << r;
        }
        ++proven;
      }
  EXPECT_EQ(proven, 225);
}

// A rank's program is its three stage programs: node peers and inter-node peers renamed, each
// stage after the previous one.
TEST(Composition, ARanksProgramIsItsStagesWithPeersRenamed) {
  const HierarchicalStages stages = stageChoices()[0].make(2, 3, ReduceOp::Sum);
  const Plan plan = composeHierarchical(stages, 6);
  // Rank 3 is local rank 1 of node 1: its node peer is rank 2, its inter-node ring runs over
  // ranks 1, 3, 5.
  const std::vector<PlanOp> &ops = plan.programs[3].channels.at(0).ops;
  const size_t rs = stages.stage(StageRole::IntraReduceScatter).programs[1].numOps(),
               ar = stages.stage(StageRole::InterAllReduce).programs[1].numOps(),
               ag = stages.stage(StageRole::IntraAllGather).programs[1].numOps();
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

// An allgather's rank runs its inter-node then its intra-node stage, each in local-major
// order in scratch, then copies every block to its node-major place in the output; a
// reduce-scatter's rank first copies its input into local-major order.
TEST(Composition, AllGatherAndReduceScatterCopyBetweenNodeAndLocalMajorOrder) {
  const int L = 2, K = 3, N = K * L;
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    SCOPED_TRACE(toString(kind));
    const HierarchicalStages stages = firstChoice(kind).make(L, K, ReduceOp::Sum);
    const Plan plan = composeHierarchical(stages, N);
    const uint32_t block = plan.units / uint32_t(N);
    const std::vector<PlanOp> &ops = plan.programs[3].channels.at(0).ops;
    ASSERT_GE(ops.size(), size_t(N));
    const bool gathering = kind == CollectiveKind::AllGather;
    const size_t first = gathering ? ops.size() - size_t(N) : 0;
    for (int k = 0; k < K; ++k)
      for (int l = 0; l < L; ++l) {
        const PlanOp &copy = ops[first + size_t(k * L + l)];
        ASSERT_EQ(copy.kind, OpKind::Copy);
        const BufRef nodeMajor = gathering ? copy.dsts.at(0) : copy.srcs.at(0);
        const BufRef localMajor = gathering ? copy.srcs.at(0) : copy.dsts.at(0);
        EXPECT_EQ(nodeMajor.buf, gathering ? BufferKind::Out : BufferKind::In);
        EXPECT_EQ(nodeMajor.offset, uint32_t(k * L + l) * block);
        EXPECT_EQ(localMajor.buf, BufferKind::Tmp);
        EXPECT_EQ(localMajor.offset - ops[first].srcs.at(0).offset * gathering -
                      ops[first].dsts.at(0).offset * !gathering,
                  uint32_t(l * K + k) * block);
      }
    // Every other op talks to node peers (ranks 2) or inter-node peers (1, 5) of rank 3.
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i >= first && i < first + size_t(N)) continue;
      for (int32_t peer : ops[i].sends) EXPECT_TRUE(peer == 2 || peer == 1 || peer == 5);
    }
  }
  // One node, or one rank per node: no copies, the stages use the message's own order.
  for (const auto &[L, K] : std::vector<std::pair<int, int>>{{1, 4}, {4, 1}}) {
    const HierarchicalStages stages = firstChoice(CollectiveKind::AllGather).make(L, K, {});
    const Plan plan = composeHierarchical(stages, K * L);
    for (int r = 0; r < K * L; ++r)
      EXPECT_EQ(plan.programs[size_t(r)].numOps(),
                stages.plans[0].programs[size_t(r / L)].numOps() +
                    stages.plans[1].programs[size_t(r % L)].numOps());
  }
}

/// A bundle of `kind` on `ranks` ranks whose every table's one bucket is the composition of
/// `choice` for the table's op.
Bundle composedBundle(const StageChoice &choice, int L, int K) {
  Bundle bundle;
  bundle.topologyFingerprint = "test";
  bundle.backend = "cpu-threads";
  bundle.ranks = K * L;
  bundle.toolVersion = "test";
  const int ops = needsReduceOp(choice.kind) ? 4 : 1;
  for (int d = 0; d < kNumDTypes; ++d)
    for (int op = 0; op < ops; ++op) {
      BucketTable t;
      t.collective = choice.kind;
      t.dtype = DType(d);
      if (needsReduceOp(choice.kind)) t.op = ReduceOp(op);
      t.buckets.push_back(bucketOf(0, std::numeric_limits<uint64_t>::max(),
                                   composeHierarchical(choice.make(L, K, ReduceOp(op)), K * L)));
      bundle.tables.push_back(std::move(t));
    }
  return bundle;
}

TEST(Composition, ResultsMatchTheReferenceOnThreads) {
  for (const StageChoice *choice : {&stageChoices()[1], &stageChoices()[4], &stageChoices()[7]})
    for (const auto &[L, K] : std::vector<std::pair<int, int>>{{2, 2}, {3, 2}, {2, 3}}) {
      const int ranks = K * L;
      const std::string path = "/tmp/collplan-composed-" + std::to_string(getpid()) + "-" +
                               std::to_string(ranks) + ".json";
      saveBundleFile(composedBundle(*choice, L, K), path);
      World world = World::threads(ranks, path.c_str());
      std::vector<std::string> failures(static_cast<size_t>(ranks));
      world.runThreads([&](Comm &comm) {
        std::string &failure = failures[size_t(comm.rank())];
        for (const CollCase &c : sweepCases(choice->kind, ranks)) {
          if (failure.empty()) failure = runAndCheck(comm, c);
          if (failure.empty() && c.count > 0 && comm.lastAlgorithm() != "hierarchical")
            failure = c.describe(ranks) + ": ran " + comm.lastAlgorithm();
        }
      });
      for (size_t r = 0; r < failures.size(); ++r)
        EXPECT_EQ(failures[r], "") << choice->name << ": " << K << " nodes of " << L << ", rank "
                                   << r;
      std::remove(path.c_str());
    }
}

TEST(Composition, TheFileStoresTheStagesAndEachRankBuildsItsProgramFromThem) {
  const HierarchicalStages stages = stageChoices()[1].make(3, 4, ReduceOp::Sum);
  const Plan plan = composeHierarchical(stages, 12);
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

TEST(Composition, AllGatherAndReduceScatterFilesNameTheirStages) {
  for (const StageChoice *choice : {&stageChoices()[4], &stageChoices()[7]}) {
    SCOPED_TRACE(choice->name);
    const Plan plan = composeHierarchical(choice->make(3, 4, ReduceOp::Sum), 12);
    const nlohmann::json doc = planToJson(plan);
    const nlohmann::json &stageDocs = doc.at("composed").at("stages");
    ASSERT_EQ(stageDocs.size(), 2u);
    for (StageRole role : composedStages(choice->kind))
      EXPECT_EQ(stageDocs.at(std::string(stageKey(role))).at("ranks"),
                stageAcrossNodes(role) ? 4 : 3);
    const Plan loaded = planFromJson(doc, "composed.json");
    for (int r = 0; r < 12; ++r)
      EXPECT_TRUE(sameProgram(loaded.programs[size_t(r)], plan.programs[size_t(r)])) << r;
    EXPECT_EQ(planToJson(loaded), doc);
    PlanLoadOptions one;
    one.onlyRank = 7;
    EXPECT_TRUE(sameProgram(planFromJson(doc, "composed.json", one).programs[7],
                            plan.programs[7]));
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
      planToJson(composeHierarchical(stageChoices()[0].make(2, 2, ReduceOp::Sum), 4));
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
              d["collective"] = "broadcast";
              d["root"] = 0;
              d.erase("op");
            }).find("collective: a composed plan is an allreduce, allgather or reduce_scatter, "
                    "not broadcast"),
            std::string::npos);
  EXPECT_NE(edited([](nlohmann::json &d) {
              d["composed"]["stages"]["inter_allgather"] = d["composed"]["stages"]["intra_allgather"];
            }).find("composed.stages.inter_allgather: is not a stage of a composed allreduce (its "
                    "stages: intra_reduce_scatter, inter_allreduce, intra_allgather)"),
            std::string::npos);
  // An allgather's stages under an allreduce's names.
  nlohmann::json gather =
      planToJson(composeHierarchical(firstChoice(CollectiveKind::AllGather).make(2, 2, {}), 4));
  gather["composed"]["stages"]["intra_reduce_scatter"] =
      gather["composed"]["stages"]["inter_allgather"];
  gather["composed"]["stages"].erase("inter_allgather");
  EXPECT_NE(loadError(gather).find("composed.stages.inter_allgather: missing required field"),
            std::string::npos)
      << loadError(gather);
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
    composeHierarchical(stages, ranks);
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
  wrongKind.stage(StageRole::IntraAllGather) = ringReduceScatterPlan(2, ReduceOp::Sum);
  EXPECT_NE(refusal(wrongKind, 4).find(
                "the intra-node allgather is a plan for reduce_scatter, not allgather"),
            std::string::npos);
  HierarchicalStages otherOp = ok();
  otherOp.stage(StageRole::InterAllReduce) = ringAllReducePlan(2, ReduceOp::Max);
  EXPECT_NE(refusal(otherOp, 4).find("the inter-node allreduce reduces with max but the "
                                     "intra-node reduce-scatter with sum"),
            std::string::npos);
  HierarchicalStages oneRank = ok();
  oneRank.stage(StageRole::IntraReduceScatter) = ringReduceScatterPlan(2, ReduceOp::Sum, 1);
  EXPECT_NE(refusal(oneRank, 4).find("plan must hold every rank's program (it was loaded for rank 1 "
                                     "alone)"),
            std::string::npos);
  EXPECT_THROW(composeHierarchical(ok(), 4, 4), std::invalid_argument);
  HierarchicalStages missing = ok();
  missing.plans.pop_back();
  EXPECT_NE(refusal(missing, 4).find("hierarchical allreduce: 3 stage plans needed, 2 given"),
            std::string::npos);
  HierarchicalStages broadcast = ok();
  broadcast.collective = CollectiveKind::Broadcast;
  EXPECT_NE(refusal(broadcast, 4).find("a composed plan is an allreduce, allgather or "
                                       "reduce_scatter, not broadcast"),
            std::string::npos);
  const HierarchicalStages gather = firstChoice(CollectiveKind::AllGather).make(2, 2, {});
  EXPECT_NE(refusal(gather, 6).find("hierarchical allgather: the inter-node allgather plan has 2 "
                                    "ranks where 3 run it"),
            std::string::npos);
  EXPECT_THROW(gather.stage(StageRole::InterAllReduce), std::invalid_argument);
  // One rank's composition needs only the stage programs it takes: rank 2 is local rank 0 of
  // node 1.
  const HierarchicalStages forRank2 =
      allReduceStages(2, ringReduceScatterPlan(2, ReduceOp::Sum, 0),
                      ringAllReducePlan(2, ReduceOp::Sum, 1), ringAllGatherPlan(2, 0));
  const Plan whole = composeHierarchical(ok(), 4);
  EXPECT_TRUE(sameProgram(composeHierarchical(forRank2, 4, 2).programs[2],
                          whole.programs[2]));
  try {
    composeHierarchical(forRank2, 4, 3);
    ADD_FAILURE() << "rank 3 composed from rank 0's intra-node programs";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("the intra-node reduce-scatter plan must hold the "
                                         "program of its rank 1 (it was loaded for rank 0 alone)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
