// Operations of the `coll` dialect: level 1 (collective), 2 (schedule), 3 (program).
#ifndef COLL_OPS_TD
#define COLL_OPS_TD

include "CollTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Coll_Rank : ConfinedAttr<I64Attr, [IntNonNegative]>;
def Coll_Positive : ConfinedAttr<I64Attr, [IntPositive]>;

// The attributes that describe a collective, shared by collective, schedule and program.
defvar CollSpecArgs = (ins SymbolNameAttr:$sym_name, Coll_CollectiveKind:$kind,
                           Coll_Positive:$ranks, OptionalAttr<Coll_Positive>:$chunks,
                           OptionalAttr<Coll_Positive>:$slices,
                           OptionalAttr<Coll_ReductionKind>:$op, OptionalAttr<Coll_Rank>:$root);
defvar CollSpecFormat = [{ $sym_name $kind `ranks` $ranks (`chunks` $chunks^)?
                           (`slices` $slices^)? (`op` $op^)? (`root` $root^)? }];

//===----------------------------------------------------------------------===//
// Level 1
//===----------------------------------------------------------------------===//

def Coll_CollectiveOp : Coll_Op<"collective", [Symbol]> {
  let summary = "names a collective: kind, ranks, chunks, slices, reduction op, root";
  let description = [{
    `coll.collective @ar allreduce ranks 8 chunks 8 op sum` asks for an allreduce over 8
    ranks whose message is cut into 8 chunks. Lowering passes turn it into a `coll.schedule`.
    `chunks` applies to allreduce, broadcast and reduce (default 1); the other kinds have one
    chunk per rank. `slices` (default 1) cuts every chunk for pipelining.
  }];
  let arguments = !con(CollSpecArgs, (ins OptionalAttr<StrAttr>:$algorithm));
  let assemblyFormat = CollSpecFormat # [{ (`algorithm` $algorithm^)? attr-dict }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Level 2: chunk dataflow
//===----------------------------------------------------------------------===//

def Coll_ScheduleOp : Coll_Op<"schedule", [Symbol, SingleBlock, NoTerminator]> {
  let summary = "a chunk-dataflow schedule that computes a collective";
  let description = [{
    The region holds `!coll.chunk` values: each is the content of one chunk (or slice) on one
    rank. `coll-verify` proves that the outputs equal the collective's specification and are
    bitwise identical on all ranks. `remote_reads` allows reductions to read peers' values.
    `sends_first` asks the level-3 programs to post every send that needs nothing received
    before any receive (a direct exchange), instead of the port model's one send per round.
    `own_steps` says the ops' `step` attributes are the algorithm's own order of the links (a
    rank sending on several links at once): `coll-schedule-steps` keeps that order instead of
    the port model's rounds.
  }];
  let arguments = !con(CollSpecArgs, (ins OptionalAttr<StrAttr>:$algorithm,
                                          UnitAttr:$remote_reads, UnitAttr:$sends_first,
                                          UnitAttr:$own_steps));
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = CollSpecFormat #
      [{ (`algorithm` $algorithm^)? (`remote_reads` $remote_reads^)?
         (`sends_first` $sends_first^)? (`own_steps` $own_steps^)? attr-dict-with-keyword
         $body }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

class Coll_ScheduleBodyOp<string mnemonic, list<Trait> traits = []>
    : Coll_Op<mnemonic, traits # [HasParent<"ScheduleOp">]>;

def Coll_InputOp : Coll_ScheduleBodyOp<"input", [Pure]> {
  let summary = "rank R's initial contribution for chunk I (slice S)";
  let arguments = (ins Coll_Rank:$rank, Coll_Rank:$chunk, OptionalAttr<Coll_Rank>:$slice);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "`rank` $rank `chunk` $chunk (`slice` $slice^)? attr-dict";
  let hasVerifier = 1;
}

def Coll_CopyOp : Coll_ScheduleBodyOp<"copy"> {
  let summary = "moves a chunk to a rank: one read, one write";
  let arguments = (ins Coll_ChunkType:$src, Coll_Rank:$rank);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$src `to` `rank` $rank attr-dict";
  let hasVerifier = 1;
}

def Coll_ReduceOp : Coll_ScheduleBodyOp<"reduce"> {
  let summary = "n-ary reduction at a rank, folded left to right in operand order (nR1W)";
  let description = [{
    `coll.reduce %a, %b, %c at rank 2` computes ((a op b) op c) at rank 2. Operands must be
    resident at rank 2, or readable from it when the schedule allows remote reads.
  }];
  let arguments = (ins Variadic<Coll_ChunkType>:$operands, Coll_Rank:$rank);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$operands `at` `rank` $rank attr-dict";
  let hasVerifier = 1;
}

def Coll_ReduceSendOp : Coll_ScheduleBodyOp<"reduce_send"> {
  let summary = "fused reduce-then-send: reduces at one rank and writes the result to another";
  let description = [{
    `coll.reduce_send %recv, %own, %peer at rank 1 to rank 2` reads its operands at rank 1
    and writes the result only at rank 2 (nR1W downstream, e.g. KangaRing's 3R1W).
  }];
  let arguments = (ins Variadic<Coll_ChunkType>:$operands, Coll_Rank:$rank, Coll_Rank:$dest);
  let results = (outs Coll_ChunkType:$result);
  let assemblyFormat = "$operands `at` `rank` $rank `to` `rank` $dest attr-dict";
  let hasVerifier = 1;
}

def Coll_DupOp : Coll_ScheduleBodyOp<"dup"> {
  let summary = "duplicated write: one read, a write to each listed rank";
  let arguments = (ins Coll_ChunkType:$src, DenseI64ArrayAttr:$ranks);
  let results = (outs Variadic<Coll_ChunkType>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Coll_OutputOp : Coll_ScheduleBodyOp<"output"> {
  let summary = "binds the final content of rank R's output chunk I (slice S)";
  let arguments = (ins Coll_ChunkType:$value, Coll_Rank:$rank, Coll_Rank:$chunk,
                       OptionalAttr<Coll_Rank>:$slice);
  let assemblyFormat = "$value `rank` $rank `chunk` $chunk (`slice` $slice^)? attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Level 3: per-rank programs
//===----------------------------------------------------------------------===//

def Coll_ProgramOp : Coll_Op<"program", [Symbol, SingleBlock, NoTerminator]> {
  let summary = "per-rank programs over in/out/tmp buffers, ready for plan export";
  let description = [{
    Holds one `coll.rank` region per rank. The message is cut into `units` equal parts;
    `scratch` is the size of the tmp buffer in units. `sends_first` (from the schedule) makes
    coll-hoist-sends post every send that needs nothing received before any receive.
  }];
  let arguments = !con(CollSpecArgs, (ins OptionalAttr<StrAttr>:$algorithm,
                                          Coll_Rank:$units, Coll_Rank:$scratch,
                                          UnitAttr:$sends_first));
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = CollSpecFormat #
      [{ (`algorithm` $algorithm^)? `units` $units `scratch` $scratch
         (`sends_first` $sends_first^)? attr-dict-with-keyword $body }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Coll_RankOp : Coll_Op<"rank", [HasParent<"ProgramOp">, SingleBlock, NoTerminator]> {
  let summary = "the instructions one rank executes, in order";
  let arguments = (ins Coll_Rank:$rank);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$rank attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

// Every level-3 instruction has the same shape: operands (buffer refs and at most one
// received message, inserted at recv_pos) are folded left to right; the value is written to
// every dst and sent to every (send_peers[i], send_ids[i]).
class Coll_InstrOp<string mnemonic, string kind, string shape>
    : Coll_Op<mnemonic, [HasParent<"RankOp">]> {
  let summary = shape;
  let arguments = (ins TypedArrayAttrBase<Coll_BufRefAttr, "buffer refs">:$srcs,
                       OptionalAttr<Coll_Rank>:$recv_peer, OptionalAttr<Coll_Rank>:$recv_id,
                       DefaultValuedAttr<I64Attr, "0">:$recv_pos,
                       TypedArrayAttrBase<Coll_BufRefAttr, "buffer refs">:$dsts,
                       DenseI64ArrayAttr:$send_peers, DenseI64ArrayAttr:$send_ids);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return parseInstruction(parser, result);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &printer) {
      printInstruction(printer, getOperation());
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return verifyInstruction(getOperation(), instructionShape());
    }
  }];
  let extraClassDeclaration = [{
    static ::collplan::OpKind instructionShape() { return ::collplan::OpKind::}] # kind # [{; }
  }];
}

def Coll_SendOp : Coll_InstrOp<"send", "Send", "send a buffer range: in[0:1] -> send 1 id 0">;
def Coll_RecvOp : Coll_InstrOp<"recv", "Recv", "receive into a buffer range: recv 3 id 5 -> tmp[0:1]">;
def Coll_RecvReduceOp : Coll_InstrOp<"recv_reduce", "RecvReduce",
    "receive and reduce with local ranges: recv 3 id 5, in[1:2] -> out[1:2]">;
def Coll_RecvReduceSendOp : Coll_InstrOp<"recv_reduce_send", "RecvReduceSend",
    "receive, reduce and send on (3R1W downstream): recv 3 id 5, in[1:2] -> send 2 id 6">;
def Coll_RecvCopySendOp : Coll_InstrOp<"recv_copy_send", "RecvCopySend",
    "receive, store and forward: recv 3 id 5 -> out[1:2], send 2 id 6">;
def Coll_LocalReduceOp : Coll_InstrOp<"local_reduce", "Reduce",
    "reduce local ranges: in[0:1], tmp[0:1] -> out[0:1]">;
def Coll_LocalCopyOp : Coll_InstrOp<"local_copy", "Copy", "copy a local range: in[0:1] -> out[0:1]">;
def Coll_DupSendOp : Coll_InstrOp<"dup_send", "Dup",
    "one read, several writes: in[0:1] -> tmp[0:1], send 2 id 3">;

include "CollTemplateOps.td"

#endif // COLL_OPS_TD
