// Operations of the `coll` dialect and the helpers their custom formats and verifiers share.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/coll/CollTypes.h"
#include "runtime/plan/Plan.h"

namespace mlir::coll {

/// A level-3 instruction as the compiler's passes see it: the runtime's plan op (kind, refs,
/// recv and send peers, step) with what only the compiler keeps: the transfer ids that pair each
/// send with its receive while passes reorder and merge instructions (exported plans match
/// transfers by their order per sender, receiver and channel instead), and the channel.
struct Instruction : ::collplan::PlanOp {
  std::optional<uint32_t> recvId;
  std::vector<uint32_t> sendIds;  ///< one per entry of `sends`
  uint32_t channel = 0;
};

/// Parses the uniform level-3 instruction syntax:
///   operands -> targets
/// where an operand is a buffer ref (`in[0:1]`) or a received message (`recv 3 id 5`) and a
/// target is a buffer ref or a send (`send 2 id 6`); a `channel` attribute (default 0) names
/// the channel the instruction runs on.
ParseResult parseInstruction(OpAsmParser &parser, OperationState &result);
void printInstruction(OpAsmPrinter &printer, Operation *op);
/// Checks the instruction against the shape of its kind and its enclosing program.
LogicalResult verifyInstruction(Operation *op, ::collplan::OpKind kind);

/// The rank where a level-2 `!coll.chunk` value resides (from its defining op).
int64_t residentRank(Value value);

/// The attribute of a coll.schedule instantiated from a coll.template: its arguments
/// ("ranks=8, rows=2"), which the verifier's errors name.
inline constexpr llvm::StringLiteral kInstanceAttr = "coll.instance";

/// Checks that a `coll.tmpl.*` op sits inside a `coll.template` (at any depth: loops nest).
LogicalResult verifyInTemplate(Operation *op);

/// A rank map of the template pattern ops, `#map(%dims)[%symbols]`: the map's first dimension
/// is the op's own index (the chain position, the table entry), so the parentheses bind the
/// others. Used through `custom<RankMap>` in the ops' assembly formats.
ParseResult parseRankMap(OpAsmParser &parser, AffineMapAttr &map,
                         SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands);
void printRankMap(OpAsmPrinter &printer, Operation *op, AffineMapAttr map, OperandRange operands);

/// Reads a level-3 instruction, kind included (and creates one).
Instruction readInstruction(Operation *op);
Operation *createInstruction(OpBuilder &builder, Location loc, const Instruction &instr);

}  // namespace mlir::coll

#define GET_OP_CLASSES
#include "dialects/coll/CollOps.h.inc"
