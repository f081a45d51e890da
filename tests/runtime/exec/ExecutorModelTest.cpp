// The proof models what the executors do: hand-built plans the proof used to accept but the
// executors ran otherwise (an op writing over its own operand at another position; a fused
// recv_reduce chain that another channel waits inside of, or that holds a message a sender needs
// consumed) are now refused at load or run as proven.
#include "ExecTestSupport.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/Deadlock.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/FusedChains.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

using namespace collplan;

namespace {

BufRef ref(BufferKind buf, uint32_t offset, uint32_t length = 1) { return {buf, offset, length}; }
constexpr BufferKind In = BufferKind::In, Out = BufferKind::Out, Tmp = BufferKind::Tmp;

/// An op with its kind inferred from its shape.
PlanOp op(std::vector<BufRef> srcs, std::optional<int32_t> recv, std::vector<BufRef> dsts,
          std::vector<int32_t> sends, std::vector<OpRef> after = {}, uint32_t recvPos = 1) {
  PlanOp o;
  o.srcs = std::move(srcs);
  o.recv = recv;
  o.recvPos = recv ? std::min<uint32_t>(recvPos, uint32_t(o.srcs.size())) : 0;
  o.dsts = std::move(dsts);
  o.sends = std::move(sends);
  o.after = std::move(after);
  o.kind = inferOpKind(o);
  return o;
}
PlanOp send(BufRef src, int32_t to, std::vector<OpRef> after = {}) {
  return op({src}, std::nullopt, {}, {to}, std::move(after));
}
PlanOp recv(int32_t from, BufRef dst) { return op({}, from, {dst}, {}); }

Plan allReducePlan(int ranks, uint32_t units, uint32_t scratch) {
  Plan p;
  p.collective = CollectiveKind::AllReduce;
  p.ranks = ranks;
  p.op = ReduceOp::Sum;
  p.algorithm = "hand-built";
  p.units = units;
  p.scratchUnits = scratch;
  p.programs.resize(size_t(ranks));
  return p;
}

/// Rank 0 folds the messages of ranks 1 and 2 into out[0] (a chain the executors fuse), while
/// its channel 1 waits for the chain's first op before it sends rank 2 the token rank 2 needs
/// before it sends its contribution: run as one pass, the chain would wait for that
/// contribution, which waits for the token, which waits for the chain.
Plan chainAwaitedByAnotherChannel() {
  Plan p = allReducePlan(3, 1, 1);
  std::vector<PlanOp> &r0 = p.programs[0].channel(0);
  r0.push_back(op({ref(In, 0)}, 1, {ref(Out, 0)}, {}));
  r0.push_back(op({ref(Out, 0)}, 2, {ref(Out, 0)}, {}));
  r0.push_back(send(ref(Out, 0), 1));
  r0.push_back(send(ref(Out, 0), 2));
  p.programs[0].channel(1).push_back(send(ref(In, 0), 2, {OpRef{0, 0}}));
  p.programs[1].channel(0) = {send(ref(In, 0), 0), recv(0, ref(Out, 0))};
  p.programs[2].channel(1).push_back(recv(0, ref(Tmp, 0)));
  p.programs[2].channel(0) = {send(ref(In, 0), 0, {OpRef{1, 0}}), recv(0, ref(Out, 0))};
  return p;
}

/// Writes `plan` as the only bucket of a bundle for cpu-threads.
std::string writeBundle(const Plan &plan, const std::string &name) {
  BucketTable table;
  table.op = ReduceOp::Sum;
  table.buckets.push_back(test::bucketOf(0, UINT64_MAX, plan));
  Bundle bundle;
  bundle.backend = "cpu-threads";
  bundle.topologyFingerprint = "any";
  bundle.ranks = plan.ranks;
  bundle.tables.push_back(std::move(table));
  const std::string path =
      (std::filesystem::temp_directory_path() / ("collplan-model-" + name + ".json")).string();
  saveBundleFile(bundle, path);
  return path;
}

}  // namespace

TEST(ExecutorModel, AChainEndsAtAnOpAnotherChannelWaitsFor) {
  Plan p = chainAwaitedByAnotherChannel();
  EXPECT_EQ(fusedChainLengths(p.programs[0])[0], (std::vector<uint32_t>{1, 1, 1, 1}));
  p.programs[0].channels[1].ops[0].after.clear();  // nobody waits inside: the chain fuses
  EXPECT_EQ(fusedChainLengths(p.programs[0])[0], (std::vector<uint32_t>{2, 0, 1, 1}));
}

/// The executors used to fuse the chain and wait for rank 2's message before finishing its first
/// op: a hang until the timeout, on a plan the proof accepted. Now it runs as proven.
TEST(ExecutorModel, AChainAwaitedByAnotherChannelRunsAsProven) {
  const Plan plan = chainAwaitedByAnotherChannel();
  validatePlan(plan, "hand-built");
  ASSERT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
  const std::string path = writeBundle(plan, "awaited-chain");
  setenv("COLLPLAN_TIMEOUT_S", "20", 1);  // a regression fails in 20 s rather than hanging
  World world = World::threads(3, path.c_str());
  std::vector<std::string> results(3);
  world.runThreads([&](Comm &comm) {
    const float mine[4] = {float(comm.rank() + 1), 2, 4, 8};
    float sum[4] = {};
    try {
      comm.allreduce(mine, sum, 4, COLLPLAN_SUM);
      results[size_t(comm.rank())] =
          std::to_string(int(sum[0])) + "," + std::to_string(int(sum[3]));
    } catch (const std::exception &e) {
      results[size_t(comm.rank())] = e.what();
    }
  });
  unsetenv("COLLPLAN_TIMEOUT_S");
  for (const std::string &r : results) EXPECT_EQ(r, "6,24");
  std::filesystem::remove(path);
}

/// Rank 1 sends rank 0 nine messages on one channel before it sends rank 2 the token rank 2
/// needs before it sends rank 0 its contribution. Op by op, rank 0's first recv frees the room
/// rank 1's ninth send waits for; run as one fused pass, the chain holds that message until rank
/// 2's arrives, which never comes. The deadlock check now runs the chain as the executors do and
/// refuses the plan.
TEST(ExecutorModel, AChainThatHoldsAMessageASenderNeedsConsumedIsADeadlock) {
  Plan p = allReducePlan(3, 1, 9);
  std::vector<PlanOp> &r0 = p.programs[0].channel(0);
  r0.push_back(op({ref(In, 0)}, 1, {ref(Out, 0)}, {}));
  r0.push_back(op({ref(Out, 0)}, 2, {ref(Out, 0)}, {}));
  for (uint32_t k = 0; k < kChannelDepth; ++k) r0.push_back(recv(1, ref(Tmp, k)));
  std::vector<PlanOp> &r1 = p.programs[1].channel(0);
  for (uint32_t k = 0; k <= kChannelDepth; ++k) r1.push_back(send(ref(In, 0), 0));
  r1.push_back(send(ref(In, 0), 2));
  p.programs[2].channel(0) = {recv(1, ref(Tmp, 0)), send(ref(In, 0), 0)};
  ASSERT_EQ(fusedChainLengths(p.programs[0])[0][0], 2u);
  const DeadlockReport report = checkDeadlockFree(p);
  ASSERT_FALSE(report.deadlockFree());
  EXPECT_NE(report.describe().find("rank 0 waits at channels[0].ops[1] for a message from rank 2"),
            std::string::npos)
      << report.describe();
  try {
    validatePlan(p, "hand-built");
    ADD_FAILURE() << "a plan that deadlocks as it runs was accepted";
  } catch (const PlanError &e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
  }
}

/// An allgather on 3 ranks where rank 0 receives its peers' blocks one place too early and
/// then moves them up with one copy, out[1:3] = out[0:2]: the proof read the whole operand
/// before writing and found every block in place, but the executors copy front to back (and a
/// device's blocks copy slices at once), so out[2] would get out[1] after it was overwritten.
/// The proof now refuses the op, naming it; the same blocks received in place are accepted.
TEST(ExecutorModel, AnOpWritingOverItsOwnOperandAtAnotherPositionIsRefused) {
  Plan p;
  p.collective = CollectiveKind::AllGather;
  p.ranks = 3;
  p.algorithm = "hand-built";
  p.units = 3;
  p.programs.resize(3);
  for (int r = 0; r < 3; ++r) {
    std::vector<PlanOp> &ops = p.programs[size_t(r)].channel(0);
    for (int peer = 0; peer < 3; ++peer)
      if (peer != r) ops.push_back(send(ref(In, 0), peer));
    if (r == 0) {
      ops.push_back(recv(1, ref(Out, 0)));
      ops.push_back(recv(2, ref(Out, 1)));
      ops.push_back(op({ref(Out, 0, 2)}, std::nullopt, {ref(Out, 1, 2)}, {}));
      ops.push_back(op({ref(In, 0)}, std::nullopt, {ref(Out, 0)}, {}));
    } else {
      ops.push_back(op({ref(In, 0)}, std::nullopt, {ref(Out, uint32_t(r))}, {}));
      for (int peer = 0; peer < 3; ++peer)
        if (peer != r) ops.push_back(recv(peer, ref(Out, uint32_t(peer))));
    }
  }
  validatePlan(p, "hand-built");
  const VerifyResult proof = verifyPlan(p);
  ASSERT_FALSE(proof.ok());
  EXPECT_EQ(proof.problems.front().path, "programs[0].channels[0].ops[4]");
  EXPECT_NE(proof.problems.front().message.find(
                "writes out[1:3] over its own operand out[0:2] at another position (out[1])"),
            std::string::npos)
      << proof.describe();

  std::vector<PlanOp> &rank0 = p.programs[0].channels[0].ops;
  rank0[2] = recv(1, ref(Out, 1));
  rank0[3] = recv(2, ref(Out, 2));
  rank0.erase(rank0.begin() + 4);
  EXPECT_TRUE(verifyPlan(p).ok()) << verifyPlan(p).describe();
}
