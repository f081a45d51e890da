// Reference plans built in C++ for the simulator's tests and benchmark (ring, tree, RD, pairwise).
#pragma once

#include "runtime/plan/Plan.h"

namespace collplan::simtest {

/// Ring allreduce (reduce-scatter then allgather, fused at the turn), `slices` slices per chunk:
/// units = n * slices, 2(n-1) transfers of M/n per rank.
Plan ringAllReduce(int n, int slices = 1);
/// Ring allgather: n - 1 transfers of one block per rank.
Plan ringAllGather(int n);
/// Ring reduce-scatter: n - 1 transfers of one block per rank.
Plan ringReduceScatter(int n);
/// Binomial-tree broadcast from `root`: ceil(log2 n) rounds of the whole message.
Plan binomialBroadcast(int n, int root = 0);
/// Recursive-doubling allreduce (n a power of two): log2 n exchanges of the whole message.
Plan recursiveDoublingAllReduce(int n);
/// Pairwise all-to-all: XOR partners for powers of two, a linear shift otherwise; each round a
/// send then a recv.
Plan pairwiseAllToAll(int n);

BufRef unitsOf(BufferKind buf, uint32_t offset, uint32_t length = 1);
PlanOp sendOp(BufRef src, int peer);
PlanOp recvOp(BufRef dst, int peer);
PlanOp copyOp(BufRef src, BufRef dst);
/// An empty plan of `n` ranks and `units` units, with no ops.
Plan emptyPlan(CollectiveKind kind, int n, uint32_t units);

}  // namespace collplan::simtest
