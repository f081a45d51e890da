// Enum attributes of the `coll` dialect: collective kind, reduction op, buffer kind.
#ifndef COLL_ENUMS_TD
#define COLL_ENUMS_TD

include "mlir/IR/EnumAttr.td"

// Case order matches collplan::CollectiveKind / ReduceOp / BufferKind (runtime/core).
def Coll_CollectiveKind : I32EnumAttr<"CollectiveKind", "collective kind", [
    I32EnumAttrCase<"allreduce", 0>, I32EnumAttrCase<"allgather", 1>,
    I32EnumAttrCase<"reduce_scatter", 2>, I32EnumAttrCase<"alltoall", 3>,
    I32EnumAttrCase<"broadcast", 4>, I32EnumAttrCase<"reduce", 5>,
    I32EnumAttrCase<"gather", 6>, I32EnumAttrCase<"scatter", 7>,
    I32EnumAttrCase<"barrier", 8>]> {
  let cppNamespace = "::mlir::coll";
}

def Coll_ReductionKind : I32EnumAttr<"ReductionKind", "reduction op", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"max", 3>]> {
  let cppNamespace = "::mlir::coll";
}

def Coll_BufferKind : I32EnumAttr<"BufferKind", "buffer kind", [
    I32EnumAttrCase<"in", 0>, I32EnumAttrCase<"out", 1>, I32EnumAttrCase<"tmp", 2>]> {
  let cppNamespace = "::mlir::coll";
}

#endif // COLL_ENUMS_TD
