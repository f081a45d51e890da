// Plan builders and error-assertion helpers for the runtime/plan tests.
#include "PlanTestUtil.h"

#include <filesystem>

namespace collplan::testing {

BufRef ref(BufferKind buf, uint32_t begin, uint32_t end) { return BufRef{buf, begin, end - begin}; }
BufRef in(uint32_t begin, uint32_t end) { return ref(BufferKind::In, begin, end); }
BufRef out(uint32_t begin, uint32_t end) { return ref(BufferKind::Out, begin, end); }
BufRef tmp(uint32_t begin, uint32_t end) { return ref(BufferKind::Tmp, begin, end); }

PlanOp makeOp(OpKind kind, std::vector<BufRef> srcs, std::optional<int32_t> recv,
              std::vector<BufRef> dsts, std::vector<int32_t> sends, int step) {
  PlanOp op;
  op.kind = kind;
  op.srcs = std::move(srcs);
  op.recv = recv;
  op.dsts = std::move(dsts);
  op.sends = std::move(sends);
  op.step = step;
  return op;
}

Plan ringAllReducePlan(int n) {
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = n;
  plan.op = ReduceOp::Sum;
  plan.algorithm = "ring";
  plan.params = {{"channels", 1}};
  plan.units = uint32_t(n);
  plan.inplaceSafe = true;
  plan.predicted = {2.0 * (n - 1), 2.0 * (n - 1) / n};
  plan.programs.resize(size_t(n));
  if (n == 1) {
    plan.programs[0].channel(0).push_back(makeOp(OpKind::Copy, {in(0, 1)}, {}, {out(0, 1)}, {}, 0));
    return plan;
  }
  auto mod = [n](int x) { return uint32_t(((x % n) + n) % n); };
  for (int r = 0; r < n; ++r) {
    const int left = (r + n - 1) % n, right = (r + 1) % n;
    std::vector<PlanOp> &ops = plan.programs[size_t(r)].channel(0);
    ops.push_back(makeOp(OpKind::Send, {in(mod(r), mod(r) + 1)}, {}, {}, {right}, 0));
    for (int s = 1; s <= 2 * n - 2; ++s) {
      const uint32_t c = mod(r - s);
      if (s < n - 1)
        ops.push_back(makeOp(OpKind::RecvReduceSend, {in(c, c + 1)}, left, {}, {right}, s));
      else if (s == n - 1)
        ops.push_back(
            makeOp(OpKind::RecvReduceSend, {in(c, c + 1)}, left, {out(c, c + 1)}, {right}, s));
      else if (s < 2 * n - 2)
        ops.push_back(makeOp(OpKind::RecvCopySend, {}, left, {out(c, c + 1)}, {right}, s));
      else
        ops.push_back(makeOp(OpKind::Recv, {}, left, {out(c, c + 1)}, {}, s));
    }
  }
  return plan;
}

Plan everyOpKindPlan() {
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = 2;
  plan.op = ReduceOp::Max;
  plan.algorithm = "every-op";
  plan.units = 2;
  plan.scratchUnits = 2;
  plan.predicted = {2, 1.5};
  plan.programs.resize(2);
  // Rank 0 sends four messages to rank 1 (in[1:2], tmp[0:1], in[0:1], a token), then receives
  // three; rank 1 receives them in that order and answers each of the first three.
  auto &r0 = plan.programs[0].channel(0);
  r0.push_back(makeOp(OpKind::Copy, {in(0, 1)}, {}, {tmp(0, 1)}, {}, 0));
  r0.push_back(makeOp(OpKind::Reduce, {in(0, 1), tmp(0, 1)}, {}, {tmp(0, 1)}, {}, 0));
  r0.push_back(makeOp(OpKind::Dup, {in(1, 2)}, {}, {tmp(1, 2)}, {1}, 0));
  r0.push_back(makeOp(OpKind::Send, {tmp(0, 1)}, {}, {}, {1}, 0));
  r0.push_back(makeOp(OpKind::Send, {in(0, 1)}, {}, {}, {1}, 0));
  r0.push_back(makeOp(OpKind::Send, {}, {}, {}, {1}, 0));  // token
  PlanOp folded = makeOp(OpKind::RecvReduce, {in(1, 2)}, 1, {out(1, 2)}, {}, -1);
  folded.recvPos = 1;
  r0.push_back(folded);
  r0.push_back(makeOp(OpKind::Recv, {}, 1, {out(0, 1)}, {}, 1));
  r0.push_back(makeOp(OpKind::Recv, {}, 1, {tmp(0, 1)}, {}, 2));
  auto &r1 = plan.programs[1].channel(0);
  r1.push_back(makeOp(OpKind::RecvCopySend, {}, 0, {out(1, 2)}, {0}, 1));
  r1.push_back(makeOp(OpKind::RecvReduceSend, {in(0, 1)}, 0, {out(0, 1)}, {0}, 1));
  r1.push_back(makeOp(OpKind::Dup, {}, 0, {tmp(0, 1)}, {0}, 1));
  r1.push_back(makeOp(OpKind::Recv, {}, 0, {}, {}, 2));  // token
  return plan;
}

Plan broadcastPlan2(int root) {
  Plan plan;
  plan.collective = CollectiveKind::Broadcast;
  plan.ranks = 2;
  plan.root = root;
  plan.algorithm = "flat";
  plan.units = 1;
  plan.programs.resize(2);
  const int other = 1 - root;
  plan.programs[size_t(root)].channel(0).push_back(
      makeOp(OpKind::Dup, {in(0, 1)}, {}, {out(0, 1)}, {other}, 0));
  plan.programs[size_t(other)].channel(0).push_back(
      makeOp(OpKind::Recv, {}, root, {out(0, 1)}, {}, 0));
  return plan;
}

Plan allGatherPlan2() {
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = 2;
  plan.algorithm = "two-shot";
  plan.units = 2;
  plan.programs.resize(2);
  for (int r = 0; r < 2; ++r) {
    const int peer = 1 - r;
    auto &ops = plan.programs[size_t(r)].channel(0);
    ops.push_back(makeOp(OpKind::Dup, {in(0, 1)}, {}, {out(uint32_t(r), uint32_t(r) + 1)},
                         {peer}, 0));
    ops.push_back(
        makeOp(OpKind::Recv, {}, peer, {out(uint32_t(peer), uint32_t(peer) + 1)}, {}, 0));
  }
  return plan;
}

Bundle ringBundle(int ranks, const std::vector<uint64_t> &splits) {
  Bundle bundle;
  bundle.topologyFingerprint = "fp-1234";
  bundle.backend = "cpu-threads";
  bundle.ranks = ranks;
  bundle.toolVersion = "0.1.0";
  bundle.tunerSettings = {{"repetitions", 20}, {"warmup", 5}};
  BucketTable &table = bundle.tables.emplace_back();
  table.collective = CollectiveKind::AllReduce;
  table.dtype = DType::F32;
  table.op = ReduceOp::Sum;
  std::vector<uint64_t> starts = {0};
  starts.insert(starts.end(), splits.begin(), splits.end());
  for (size_t i = 0; i < starts.size(); ++i) {
    Bucket &b = table.buckets.emplace_back();
    b.minBytes = starts[i];
    b.maxBytes = i + 1 < starts.size() ? starts[i + 1] - 1 : UINT64_MAX;
    b.plan = ringAllReducePlan(ranks);
    b.winner = {"ring", 1.25 + double(i), 1.0 + double(i)};
    if (i % 2 == 0) b.runnerUp = BucketCandidate{"rdh", 2.5, 2.0};
  }
  return bundle;
}

void expectPlanError(const std::function<void()> &load, const std::string &field,
                     const std::string &reason) {
  try {
    load();
    ADD_FAILURE() << "expected PlanError at \"" << field << "\" containing \"" << reason << '"';
  } catch (const PlanError &e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(e.origin(), 0), 0u) << what;
    EXPECT_NE(what.find(field), std::string::npos) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  } catch (const std::exception &e) {
    ADD_FAILURE() << "expected PlanError, got another exception: " << e.what();
  }
}

void expectPlanJsonError(const Plan &plan, const std::function<void(nlohmann::json &)> &edit,
                         const std::string &field, const std::string &reason) {
  nlohmann::json doc = planToJson(plan);
  edit(doc);
  expectPlanError([&] { planFromJson(doc, "test.plan.json"); }, field, reason);
}

void expectBundleJsonError(const Bundle &bundle, const std::function<void(nlohmann::json &)> &edit,
                           const std::string &field, const std::string &reason,
                           const BundleExpectations &expectations) {
  nlohmann::json doc = bundleToJson(bundle);
  edit(doc);
  expectPlanError([&] { bundleFromJson(doc, "test.bundle.json", expectations); }, field, reason);
}

std::string scratchPath(const std::string &name) {
  std::filesystem::path dir = std::filesystem::path(COLLPLAN_BINARY_DIR) / "test-scratch" / "plan";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string dataPath(const std::string &name) {
  return std::string(COLLPLAN_SOURCE_DIR) + "/tests/runtime/plan/data/" + name;
}

}  // namespace collplan::testing
