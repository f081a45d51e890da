// Declarations of collplan's compiler passes.
#ifndef COLLPLAN_PASSES_TD
#define COLLPLAN_PASSES_TD

include "mlir/Pass/PassBase.td"

def CollVerify : Pass<"coll-verify", "mlir::ModuleOp"> {
  let summary = "Prove that every coll.schedule computes its collective, deterministically";
  let description = [{
    Tracks the provenance of every `!coll.chunk` value (the multiset of (rank, chunk, slice)
    inputs it combines, as a hash-consed reduction tree) and its location, then checks:
    operands are used only where they reside (or remote reads are allowed), reductions never
    combine different chunks or count a contribution twice, every required output is bound
    exactly once and equals the specification of the collective, and all copies of one output
    come from the same reduction tree in the same operand order (bitwise identical on all
    ranks). Errors are attached to the offending op.
  }];
}

def CollCost : Pass<"coll-cost", "mlir::ModuleOp"> {
  let summary = "Report the α-β cost, bytes, memory touches and scratch of each schedule";
  let description = [{
    Prints, for each `coll.schedule`: α-rounds and the β coefficient under the port model
    (each rank one full-duplex port; transfers list-scheduled into rounds), the bytes moved,
    the memory touches (reads + writes) per rank and the peak scratch. With `annotate`, the
    figures are also attached to the schedule as a `coll.cost` dictionary attribute.
  }];
  let options = [
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Attach the figures to each schedule as a coll.cost attribute">,
    Option<"perRank", "per-rank", "bool", /*default=*/"false",
           "Also print the memory touches and scratch of every rank">,
  ];
}

//===----------------------------------------------------------------------===//
// Lowerings: coll.collective -> coll.schedule, one pass per algorithm family
//===----------------------------------------------------------------------===//

// Options every lowering shares.
defvar CollTopologyOption = Option<"topology", "topology", "std::string", /*default=*/"\"\"",
    "Topology (file, preset or generator spec) that supplies ring orders and device groups">;

def CollLowerRing : Pass<"coll-lower-ring", "mlir::ModuleOp"> {
  let summary = "Lower collectives with algorithm 'ring' or 'line' to schedules";
  let description = [{
    Ring allgather, reduce-scatter and allreduce (reduce-scatter then allgather, with fused
    reduce-then-send steps), unidirectional or bidirectional (half of every block each way),
    over several channels (rings over link-disjoint Hamiltonian cycles of the topology, or
    given orders), in a given or topology-derived rank order. Line: allgather and
    reduce-scatter on an open chain.
  }];
  let options = [
    Option<"channels", "channels", "int", /*default=*/"1", "Rings over disjoint link sets">,
    Option<"bidirectional", "bidirectional", "bool", /*default=*/"false",
           "Send half of every block each way round the ring">,
    ListOption<"order", "order", "int", "Ring order: a permutation of the ranks">,
    CollTopologyOption,
  ];
}

def CollLowerFlat : Pass<"coll-lower-flat", "mlir::ModuleOp"> {
  let summary = "Lower collectives with algorithm 'flat' (root talks to everyone directly)";
  let description = [{
    Flat baselines: broadcast and scatter (the root sends to every rank), gather and reduce
    (every rank sends to the root, which folds in rank order).
  }];
  let options = [CollTopologyOption];
}

def CollLowerTree : Pass<"coll-lower-tree", "mlir::ModuleOp"> {
  let summary = "Lower tree algorithms: binomial, pipelined binary, double binary";
  let description = [{
    binomial-tree: broadcast, reduce, allreduce (= reduce + broadcast) in ceil(log2 N) rounds.
    pipelined-tree: a binary (or fan-out k) tree carrying the message in `pipeline` chunks.
    double-binary-tree: allreduce over two trees, where the leaves of one are inner nodes of
    the other, each carrying half of the data.
  }];
  let options = [
    Option<"fanout", "fanout", "int", /*default=*/"2", "Children per tree node">,
    Option<"pipeline", "pipeline", "int", /*default=*/"4", "Chunks a pipelined tree streams">,
    CollTopologyOption,
  ];
}

def CollLowerRdh : Pass<"coll-lower-rdh", "mlir::ModuleOp"> {
  let summary = "Lower recursive doubling / halving, Rabenseifner and RDH over torus dimensions";
  let description = [{
    recursive-doubling: allgather, allreduce (log2 N rounds of growing or whole messages).
    recursive-halving: reduce-scatter. rabenseifner: allreduce = reduce-scatter by halving +
    allgather by doubling. rdh: recursive doubling/halving across the dimensions of a hypercube
    or torus (`dims`), with an intra-device stage first/last when several ranks share a device.
    Rank counts that are not powers of two fold the extra ranks in first and out last.
  }];
  let options = [
    ListOption<"dims", "dims", "int", "Extents of the device hypercube/torus (product = devices)">,
    Option<"ranksPerDevice", "ranks-per-device", "int", /*default=*/"1", "Ranks per device">,
    CollTopologyOption,
  ];
}

def CollLowerPairwise : Pass<"coll-lower-pairwise", "mlir::ModuleOp"> {
  let summary = "Lower pairwise all-to-all and the dissemination / pairwise barriers";
  let description = [{
    pairwise: all-to-all in N-1 rounds, partner r XOR k for powers of two and (r + k) mod N
    otherwise. dissemination: barrier in ceil(log2 N) rounds. pairwise-barrier: barrier by
    pairwise exchanges.
  }];
  let options = [CollTopologyOption];
}

def CollLowerKangaRing : Pass<"coll-lower-kangaring", "mlir::ModuleOp"> {
  let summary = "Lower KangaRing: rings over device primaries with duplicated writes";
  let description = [{
    Ranks are grouped in pairs on one device (primary, secondary); only primaries form the
    ring. Allgather duplicates each received chunk to the secondary and downstream (1R2W);
    reduce-scatter reduces the received partial, its own and the secondary's chunk in one 3R1W
    op; the primary role alternates between two rings so every rank carries half the traffic.
  }];
  let options = [
    Option<"ranksPerDevice", "ranks-per-device", "int", /*default=*/"2", "Ranks per device">,
    ListOption<"order", "order", "int", "Device ring order: a permutation of the devices">,
    CollTopologyOption,
  ];
}

def CollLowerMesh : Pass<"coll-lower-mesh", "mlir::ModuleOp"> {
  let summary = "Lower Mesh: direct writes to every peer (two-step and single-step)";
  let description = [{
    mesh-two-step: reduce-scatter and allgather through direct writes to every peer device,
    then an intra-device exchange. mesh-single-step: allreduce where every rank duplicates its
    whole input to all peers and each reduces all of it in the same order.
  }];
  let options = [
    Option<"ranksPerDevice", "ranks-per-device", "int", /*default=*/"1", "Ranks per device">,
    CollTopologyOption,
  ];
}

def CollLowerShot : Pass<"coll-lower-shot", "mlir::ModuleOp"> {
  let summary = "Lower one-shot and two-shot allreduce (vLLM's custom allreduce)";
  let description = [{
    one-shot: every rank reads every peer's whole buffer and reduces it in rank order.
    two-shot: reduce-scatter by direct reads, then allgather of the reduced chunks.
  }];
  let options = [CollTopologyOption];
}

def CollLowerHierarchical : Pass<"coll-lower-hierarchical", "mlir::ModuleOp"> {
  let summary = "Lower hierarchical allreduce: intra-node reduce, inter-node exchange, broadcast";
  let description = [{
    Nodes of `ranks-per-node` consecutive ranks: reduce-scatter inside each node, an inter-node
    allreduce of each node's share between the ranks with the same local index (ring or
    recursive doubling), then allgather inside each node.
  }];
  let options = [
    Option<"ranksPerNode", "ranks-per-node", "int", /*default=*/"0",
           "Ranks per node (0: from the topology)">,
    Option<"inter", "inter", "std::string", /*default=*/"\"ring\"",
           "Inter-node algorithm: ring or recursive-doubling">,
    CollTopologyOption,
  ];
}

//===----------------------------------------------------------------------===//
// Optimizations
//===----------------------------------------------------------------------===//

def CollSlice : Pass<"coll-slice", "mlir::ModuleOp"> {
  let summary = "Cut every chunk of every schedule into k slices for pipelining";
  let description = [{
    Replicates each schedule's dataflow once per slice, interleaved op by op, so that the
    transfer of one slice overlaps the reduction of the previous one. Slice s of an existing
    slice becomes slice s * k + j. Verification and cost see an ordinary sliced schedule.
  }];
  let options = [
    Option<"slices", "slices", "int", /*default=*/"2", "Slices per chunk (at least 1)">,
  ];
}

def CollFuseReduceCopy : Pass<"coll-fuse-reduce-copy", "mlir::ModuleOp"> {
  let summary = "Fuse a reduce whose only use is a copy into one reduce_send";
  let description = [{
    `%r = coll.reduce %a, %b at rank R` followed by `%s = coll.copy %r to rank D` (its only
    use) becomes `%s = coll.reduce_send %a, %b at rank R to rank D`: the result is written only
    downstream, saving a write and a read at R.
  }];
}

def CollFuseDup : Pass<"coll-fuse-dup", "mlir::ModuleOp"> {
  let summary = "Fuse copies of one value to different ranks into one coll.dup";
  let description = [{
    Copies of the same value to distinct ranks become one `coll.dup` (one read, several
    writes), where the topology supports duplication.
  }];
}

def CollScheduleSteps : Pass<"coll-schedule-steps", "mlir::ModuleOp"> {
  let summary = "Assign a `step` to every transfer (the port-model rounds of coll-cost)";
}

def CollToProgram : Pass<"coll-to-program", "mlir::ModuleOp"> {
  let summary = "Lower verified schedules to per-rank programs (level 3)";
  let description = [{
    Places every value in a buffer (inputs in `in`, values bound to an output at their rank in
    `out`, others in `tmp` with the fewest slots), turns transfers into matched send/recv pairs
    (fusing a receive into the reduction that consumes it, and reduce-then-send into
    recv_reduce_send), and replaces each coll.schedule by a coll.program. The programs are
    checked for deadlock before the schedule is replaced.
  }];
}

#endif // COLLPLAN_PASSES_TD
