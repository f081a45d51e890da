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

/// Parses the uniform level-3 instruction syntax:
///   operands -> targets
/// where an operand is a buffer ref (`in[0:1]`) or a received message (`recv 3 id 5`) and a
/// target is a buffer ref or a send (`send 2 id 6`).
ParseResult parseInstruction(OpAsmParser &parser, OperationState &result);
void printInstruction(OpAsmPrinter &printer, Operation *op);
/// Checks the instruction against the shape of its kind and its enclosing program.
LogicalResult verifyInstruction(Operation *op, ::collplan::OpKind kind);

/// The rank where a level-2 `!coll.chunk` value resides (from its defining op).
int64_t residentRank(Value value);

/// Converts a level-3 instruction to the runtime's plan op, kind included (and back).
::collplan::PlanOp toPlanOp(Operation *op);
Operation *createInstruction(OpBuilder &builder, Location loc, const ::collplan::PlanOp &op);

}  // namespace mlir::coll

#define GET_OP_CLASSES
#include "dialects/coll/CollOps.h.inc"
