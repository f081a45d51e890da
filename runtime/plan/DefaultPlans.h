// Built-in plan generators: the plans the runtime uses when no tuned bundle covers a call.
#pragma once

#include "runtime/plan/Plan.h"

#include <optional>
#include <string_view>
#include <vector>

namespace collplan {

/// Every generator returns a valid plan (validatePlan passes) for any `ranks` >= 1; with one
/// rank the plan is a local copy. With `onlyRank` >= 0 it builds that rank's program alone
/// (Plan::onlyRank; the others are empty), in time and memory linear in the ranks: what one
/// rank needs to run the plan, where the whole plan grows with the square of the ranks. Each rank's program is one channel, and no op writes its value
/// to more than one place, so the plans run on every backend and every simulated topology (none
/// needs duplicated writes). Units are the natural chunks of the algorithm (one per rank for
/// ring and direct plans), so the executor's unit layout handles any count.
///
/// Ring allreduce: reduce-scatter then allgather around the ring 0 -> 1 -> ... -> N-1 -> 0, with
/// fused recv_reduce_send and recv_copy_send; 2(N-1) steps, units = N. Chunk c is reduced once,
/// in the order of the ring starting at rank c, and copied everywhere else, so all ranks hold
/// bitwise-identical results.
Plan ringAllReducePlan(int ranks, ReduceOp op, int onlyRank = -1);
/// Ring allgather: N-1 steps of recv_copy_send, units = N (one block per rank).
Plan ringAllGatherPlan(int ranks, int onlyRank = -1);
/// Ring reduce-scatter: rank r ends with block r reduced; N-1 steps, units = N.
Plan ringReduceScatterPlan(int ranks, ReduceOp op, int onlyRank = -1);
/// Two-shot allreduce (the compiler's two-shot: reduce-scatter by direct transfers, then an
/// allgather of the reduced chunks) for shared memory: rank r pulls chunk r of every input,
/// folds it in rank order in one pass, then every rank pulls every reduced chunk. Two rounds;
/// the fewest memory touches when peers' buffers are readable.
Plan twoShotAllReducePlan(int ranks, ReduceOp op, int onlyRank = -1);
/// Recursive-doubling allreduce (the compiler's recursive-doubling): partners r XOR 2^k swap
/// their whole partial results and both fold the lower rank's first, ceil(log2 N) rounds; other
/// rank counts fold MPICH's way (the first 2*rem ranks in pairs, the even one's input handed to
/// the odd one before the exchanges and the result handed back after them). units = 1, one
/// unit of scratch; the fewest rounds, for messages too small for bandwidth to matter.
Plan recursiveDoublingAllReducePlan(int ranks, ReduceOp op, int onlyRank = -1);
/// Recursive-doubling allgather (the compiler's recursive-doubling): partners v XOR 2^k swap
/// all the blocks they hold, one message each way, ceil(log2 N) rounds; other rank counts fold
/// as the allreduce does (the extra's block to its partner first, every block back last).
/// units = N; the fewest rounds, for small messages.
Plan recursiveDoublingAllGatherPlan(int ranks, int onlyRank = -1);
/// Recursive-halving reduce-scatter (the compiler's recursive-halving): partners v XOR 2^k,
/// from the farthest, send the partial sums of the half the other keeps and fold the other's
/// into theirs, the lower rank's first; other rank counts fold as recursive doubling does.
/// units = N, N units of scratch; log2 N rounds where the ring takes N-1.
Plan recursiveHalvingReduceScatterPlan(int ranks, ReduceOp op, int onlyRank = -1);
/// Flat broadcast: the root sends the whole message to every other rank, one send each.
Plan flatBroadcastPlan(int ranks, int root, int onlyRank = -1);
/// Binomial-tree broadcast (the compiler's binomial-tree: a rank receives from itself minus its
/// highest set bit, relative to the root): ceil(log2 N) rounds.
Plan binomialBroadcastPlan(int ranks, int root, int onlyRank = -1);
/// Binomial-tree reduce to `root`; non-roots accumulate their subtree in tmp.
Plan binomialReducePlan(int ranks, int root, ReduceOp op, int onlyRank = -1);
/// Flat gather / scatter: every rank exchanges its block with the root directly.
Plan flatGatherPlan(int ranks, int root, int onlyRank = -1);
Plan flatScatterPlan(int ranks, int root, int onlyRank = -1);
/// Direct all-to-all (the compiler's direct): all sends first (rank r sends to r+1, r+2, ...),
/// then the receives in the matching order, so no send waits for a receive; in-place safe
/// because every input block is read before any output write.
Plan directAllToAllPlan(int ranks, int onlyRank = -1);
/// Dissemination barrier: ceil(log2 N) rounds of token messages to rank + 2^k.
Plan disseminationBarrierPlan(int ranks, int onlyRank = -1);

/// A built-in plan generator, as plans/defaults.json names it.
struct BuiltInPlan {
  std::string_view name;  ///< also the `algorithm` of the plans it makes
  std::vector<CollectiveKind> kinds;
  /// The plan for `kind` on `ranks` ranks; `op` for reducing kinds, `root` for rooted ones;
  /// only the program of `onlyRank` when it is >= 0.
  Plan (*make)(CollectiveKind kind, int ranks, ReduceOp op, int root, int onlyRank);
  /// At most how many ops the whole plan for `kind` on `ranks` ranks has (any root), at most
  /// twice as many as it has: what memory estimates count before building it.
  uint64_t (*maxOps)(CollectiveKind kind, int ranks);

  bool serves(CollectiveKind kind) const;
};

/// Every built-in generator, each named for its compiler twin (the registered algorithm whose
/// plan has the same messages): ring, two-shot, recursive-doubling, recursive-halving,
/// binomial-tree, flat, direct, dissemination.
const std::vector<BuiltInPlan> &builtInPlans();
/// The generator named `name` that serves `kind`, or nullptr.
const BuiltInPlan *findBuiltInPlan(std::string_view name, CollectiveKind kind);

/// The plan a communicator uses for a call of `messageBytes` no bundle covers: the built-in plan
/// the default rules (plans/defaults.json, DefaultRules.h) choose. `op` is required for reducing
/// kinds and `root` for rooted ones (std::invalid_argument otherwise).
Plan defaultPlan(CollectiveKind kind, int ranks, std::optional<ReduceOp> op, int root,
                 uint64_t messageBytes = 0);

/// The op kind that matches an op's shape (srcs, recv, dsts, sends), as listed on OpKind.
OpKind inferOpKind(const PlanOp &op);

}  // namespace collplan
