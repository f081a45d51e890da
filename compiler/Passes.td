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

#endif // COLLPLAN_PASSES_TD
