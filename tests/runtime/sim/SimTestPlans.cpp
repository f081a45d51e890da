// Reference plans for the simulator's tests: level-3 programs of the textbook algorithms.
#include "SimTestPlans.h"

namespace collplan::simtest {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

PlanOp recvReduceSendOp(BufRef own, int from, int to) {
  PlanOp op;
  op.kind = OpKind::RecvReduceSend;
  op.recv = from;
  op.recvPos = 0;
  op.srcs = {own};
  op.sends = {to};
  return op;
}

PlanOp recvCopySendOp(BufRef dst, int from, int to) {
  PlanOp op;
  op.kind = OpKind::RecvCopySend;
  op.recv = from;
  op.dsts = {dst};
  op.sends = {to};
  return op;
}

PlanOp recvReduceOp(BufRef own, BufRef dst, int from, uint32_t recvPos) {
  PlanOp op;
  op.kind = OpKind::RecvReduce;
  op.recv = from;
  op.recvPos = recvPos;
  op.srcs = {own};
  op.dsts = {dst};
  return op;
}

}  // namespace

BufRef unitsOf(BufferKind buf, uint32_t offset, uint32_t length) {
  return BufRef{buf, offset, length};
}

PlanOp sendOp(BufRef src, int peer) {
  PlanOp op;
  op.kind = OpKind::Send;
  op.srcs = {src};
  op.sends = {peer};
  return op;
}

PlanOp recvOp(BufRef dst, int peer) {
  PlanOp op;
  op.kind = OpKind::Recv;
  op.recv = peer;
  op.dsts = {dst};
  return op;
}

PlanOp copyOp(BufRef src, BufRef dst) {
  PlanOp op;
  op.kind = OpKind::Copy;
  op.srcs = {src};
  op.dsts = {dst};
  return op;
}

Plan emptyPlan(CollectiveKind kind, int n, uint32_t units) {
  Plan plan;
  plan.collective = kind;
  plan.ranks = n;
  if (needsReduceOp(kind)) plan.op = ReduceOp::Sum;
  plan.algorithm = "test";
  plan.units = units;
  plan.programs.resize(n);
  return plan;
}

Plan ringAllReduce(int n, int slices) {
  const uint32_t k = uint32_t(slices);
  Plan plan = emptyPlan(CollectiveKind::AllReduce, n, uint32_t(n) * k);
  plan.algorithm = "ring";
  plan.params = {{"slices", slices}};
  for (int r = 0; r < n; ++r) {
    auto &ops = plan.programs[r].channel(0);
    int next = mod(r + 1, n), prev = mod(r - 1, n);
    for (int s = 0; s <= 2 * n - 2; ++s) {
      uint32_t chunk = uint32_t(mod(r - s, n));
      for (uint32_t j = 0; j < k; ++j) {
        BufRef in = unitsOf(BufferKind::In, chunk * k + j), out = unitsOf(BufferKind::Out, chunk * k + j);
        PlanOp op;
        if (s == 0) {
          op = sendOp(in, next);
        } else if (s < n - 1) {
          op = recvReduceSendOp(in, prev, next);
        } else if (s == n - 1) {
          op = recvReduceSendOp(in, prev, next);
          op.dsts = {out};
        } else if (s < 2 * n - 2) {
          op = recvCopySendOp(out, prev, next);
        } else {
          op = recvOp(out, prev);
        }
        op.step = s;
        ops.push_back(op);
      }
    }
  }
  return plan;
}

Plan ringAllGather(int n) {
  Plan plan = emptyPlan(CollectiveKind::AllGather, n, uint32_t(n));
  plan.algorithm = "ring";
  for (int r = 0; r < n; ++r) {
    auto &ops = plan.programs[r].channel(0);
    int next = mod(r + 1, n), prev = mod(r - 1, n);
    BufRef in = unitsOf(BufferKind::In, 0);
    ops.push_back(copyOp(in, unitsOf(BufferKind::Out, uint32_t(r))));
    ops.push_back(sendOp(in, next));
    for (int s = 1; s < n - 1; ++s)
      ops.push_back(recvCopySendOp(unitsOf(BufferKind::Out, uint32_t(mod(r - s, n))), prev, next));
    ops.push_back(recvOp(unitsOf(BufferKind::Out, uint32_t(mod(r - (n - 1), n))), prev));
  }
  return plan;
}

Plan ringReduceScatter(int n) {
  Plan plan = emptyPlan(CollectiveKind::ReduceScatter, n, uint32_t(n));
  plan.algorithm = "ring";
  for (int r = 0; r < n; ++r) {
    auto &ops = plan.programs[r].channel(0);
    int next = mod(r + 1, n), prev = mod(r - 1, n);
    auto in = [&](int chunk) { return unitsOf(BufferKind::In, uint32_t(mod(chunk, n))); };
    ops.push_back(sendOp(in(r - 1), next));
    for (int s = 1; s < n - 1; ++s)
      ops.push_back(recvReduceSendOp(in(r - s - 1), prev, next));
    ops.push_back(recvReduceOp(in(r), unitsOf(BufferKind::Out, 0), prev, 0));
  }
  return plan;
}

Plan binomialBroadcast(int n, int root) {
  Plan plan = emptyPlan(CollectiveKind::Broadcast, n, 1);
  plan.algorithm = "binomial-tree";
  plan.root = root;
  int rounds = 0;
  while ((1 << rounds) < n) ++rounds;
  for (int v = 0; v < n; ++v) {  // v: rank relative to the root
    int r = mod(v + root, n);
    auto &ops = plan.programs[r].channel(0);
    BufRef out = unitsOf(BufferKind::Out, 0);
    int firstRound = 0;
    if (v == 0) {
      ops.push_back(copyOp(unitsOf(BufferKind::In, 0), out));
    } else {
      int k = 0;
      while ((2 << k) <= v) ++k;  // v in [2^k, 2^(k+1)): received in round k
      ops.push_back(recvOp(out, mod(v - (1 << k) + root, n)));
      firstRound = k + 1;
    }
    for (int k = firstRound; k < rounds; ++k)
      if (v + (1 << k) < n) {
        int child = mod(v + (1 << k) + root, n);
        ops.push_back(sendOp(out, child));
      }
  }
  return plan;
}

Plan recursiveDoublingAllReduce(int n) {
  Plan plan = emptyPlan(CollectiveKind::AllReduce, n, 1);
  plan.algorithm = "recursive_doubling";
  BufRef out = unitsOf(BufferKind::Out, 0);
  for (int r = 0; r < n; ++r) {
    auto &ops = plan.programs[r].channel(0);
    ops.push_back(copyOp(unitsOf(BufferKind::In, 0), out));
    for (int k = 0; (1 << k) < n; ++k) {
      int partner = r ^ (1 << k);
      ops.push_back(sendOp(out, partner));
      ops.push_back(recvReduceOp(out, out, partner,
                                 partner < r ? 0 : 1));
    }
  }
  return plan;
}

Plan pairwiseAllToAll(int n) {
  Plan plan = emptyPlan(CollectiveKind::AllToAll, n, uint32_t(n));
  plan.algorithm = "pairwise";
  bool powerOfTwo = (n & (n - 1)) == 0;
  for (int r = 0; r < n; ++r) {
    auto &ops = plan.programs[r].channel(0);
    ops.push_back(copyOp(unitsOf(BufferKind::In, uint32_t(r)), unitsOf(BufferKind::Out, uint32_t(r))));
    for (int k = 1; k < n; ++k) {
      int to = powerOfTwo ? (r ^ k) : mod(r + k, n);
      int from = powerOfTwo ? (r ^ k) : mod(r - k, n);
      ops.push_back(sendOp(unitsOf(BufferKind::In, uint32_t(to)), to));
      ops.push_back(recvOp(unitsOf(BufferKind::Out, uint32_t(from)), from));
    }
  }
  return plan;
}

}  // namespace collplan::simtest
