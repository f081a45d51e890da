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
// Lowering: coll.collective -> coll.schedule, through the algorithm registry
//===----------------------------------------------------------------------===//

def CollLower : Pass<"coll-lower", "mlir::ModuleOp"> {
  let summary = "Lower every coll.collective with its registered algorithm to a schedule";
  let description = [{
    Dispatches each `coll.collective` by its `algorithm` attribute (or the `algorithm` option,
    for collectives that name none) through the algorithm registry
    (compiler/lowering/Algorithms.h). `params` are KEY=VALUE texts, the syntax of plan-compile
    --param (`--coll-lower="params='channels=2 order=0,2,1,3'"`), parsed and range-checked by
    the spec each algorithm declares and applied to every collective whose algorithm declares
    the key; the others keep their algorithm's defaults. An unknown algorithm, a value its spec
    refuses or parameters the algorithm rejects are errors on the collective; an unknown key, or
    one no lowered algorithm takes, an error on the module. This is the first pass of
    `coll-compile`; plan-compile --list shows every algorithm's parameters.
  }];
  let options = [
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"\"",
           "Algorithm of the collectives that name none (those that name one keep theirs)">,
    Option<"params", "params", "std::string", /*default=*/"\"\"",
           "Algorithm parameters, space-separated KEY=VALUE (see plan-compile --list)">,
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology (file, preset or generator spec) for topology-aware lowerings">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each schedule">,
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
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each schedule">,
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

def CollScheduleSteps : Pass<"coll-schedule-steps", "mlir::ModuleOp"> {
  let summary = "Assign a `step` to every transfer (the port-model rounds of coll-cost)";
}

def CollToProgram : Pass<"coll-to-program", "mlir::ModuleOp"> {
  let summary = "Verify schedules and lower them to per-rank programs (level 3): placement";
  let description = [{
    Proves each schedule (as coll-verify), then places every value in a buffer (inputs in
    `in`, values bound to an output at their rank in `out`, others in `tmp` with the fewest
    slots), turns transfers into send/recv pairs with compiler transfer ids on the channel the
    schedule's op names (fusing a receive into the reduction that consumes it, and
    reduce-then-send into recv_reduce_send), and replaces each coll.schedule by a coll.program
    (keeping its `coll.cost`). The programs are not yet ordered for the runtime: run
    coll-hoist-sends and coll-export-plan (or the coll-compile pipeline).
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each program">,
  ];
}

def CollCoalesceTransfers : Pass<"coll-coalesce-transfers", "mlir::ModuleOp"> {
  let summary = "Join same-round transfers between two ranks into one message (aggregation)";
  let description = [{
    Transfers one rank sends to one peer on one channel in the same round (the step of the
    receiving instruction) become one message when the sender holds the pieces next to each
    other (directly, or through a range an earlier local copy made equal) and the receiver
    writes them with plain receives into adjacent ranges in the same order: recursive
    doubling's round k becomes one message of 2^(k-1) blocks, as in MPI. A send is only ever
    delayed past local instructions, a receive only moves up past instructions that neither
    wait nor touch what it writes, and rounds (a pipeline's slices) are never merged.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each program">,
  ];
}

def CollHoistSends : Pass<"coll-hoist-sends", "mlir::ModuleOp"> {
  let summary = "Order each channel so that sends go before the receives they do not need";
  let description = [{
    Runs all ranks together round by round under the execution model (transfers matched in
    order per sender, receiver and channel; bounded messages in flight per FIFO): each round
    every rank issues what is ready, instructions that receive nothing first, then receives of
    messages sent earlier in their FIFO's order. Instructions keep the order their buffer
    units require. Each rank's program is rewritten in issue order, which makes every FIFO's
    two ends agree and the programs deadlock-free by construction: a ring's ranks all send
    their own block before forwarding, so the ring no longer runs as a chain.
    With `unbounded-fifos`, FIFOs hold any number of messages: the order the coalescing pass
    starts from, checked again by the hoist that follows it.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each program">,
    Option<"unboundedFifos", "unbounded-fifos", "bool", /*default=*/"false",
           "Order as if FIFOs held any number of messages (before coll-coalesce-transfers)">,
  ];
}

def CollAllocateScratch : Pass<"coll-allocate-scratch", "mlir::ModuleOp"> {
  let summary = "Share tmp units between values whose lifetimes in the ordered programs do not overlap";
  let description = [{
    Placement gives every value tmp units of its own, so that only data orders the
    instructions while coll-hoist-sends orders them (a reused unit would add an order that in-order
    transfer matching can turn into a deadlock). Once ordered, this pass gives the tmp ranges
    physical units: ranges an instruction uses together stay together, and blocks whose
    lifetimes in program order do not overlap share units (first fit, unit phases kept). The
    program's `scratch` shrinks accordingly.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each program">,
  ];
}

def CollExportPlan : Pass<"coll-export-plan", "mlir::ModuleOp"> {
  let summary = "Export each program as a runtime plan (format 2) and prove it loads";
  let description = [{
    Converts each coll.program into the runtime's plan: instructions grouped by channel in
    program order, `after` references where channels conflict on a buffer unit, transfer ids
    dropped (the plan matches transfers in order). The plan is validated exactly as the
    runtime loads it (shapes, ranges, transfers matched in order, deadlock freedom). With
    `output`, the plan is written there (compact JSON, or CBOR for a .cbor path); the module
    must then hold one program.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Write the plan to this file">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report what the pass did as a remark on each program">,
  ];
}

//===----------------------------------------------------------------------===//
// Schedule templates
//===----------------------------------------------------------------------===//

def CollInstantiate : Pass<"coll-instantiate", "mlir::ModuleOp"> {
  let summary = "Instantiate every coll.template for one rank count into a coll.schedule";
  let description = [{
    Binds each template's parameters (`ranks`, `root` and `op` from the options; the others
    from `params`, then the topology's `ranks-per-node` / `ranks-per-device`, then the
    template's defaults), runs its body (loops, index arithmetic, tables of chunks) and
    replaces the template by the level-2 `coll.schedule` of the same name, each op at the
    template op it came from. Errors name that op and the parameters (e.g. a rank out of
    range for ranks=5). Follow it with `coll-verify` to prove the schedule.
  }];
  let options = [
    Option<"ranks", "ranks", "int", /*default=*/"0", "Rank count N (required)">,
    Option<"params", "params", "std::string", /*default=*/"\"\"",
           "The template parameters as space-separated KEY=VALUE (e.g. 'rows=2')">,
    Option<"op", "op", "std::string", /*default=*/"\"sum\"",
           "Reduction op of reducing collectives: sum, prod, min or max">,
    Option<"root", "root", "int", /*default=*/"0", "Root of rooted collectives">,
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology (file, preset or generator spec) for topology-derived parameters">,
  ];
}

#endif // COLLPLAN_PASSES_TD
