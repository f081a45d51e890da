// The `coll` dialect: collectives as chunk dataflow (see dialects/coll/README.md).
#ifndef COLL_DIALECT_TD
#define COLL_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Coll_Dialect : Dialect {
  let name = "coll";
  let cppNamespace = "::mlir::coll";
  let summary = "Collective communication as chunk dataflow and per-rank programs";
  let description = [{
    Three levels in one dialect. Level 1 (`coll.collective`) names what to compute. Level 2
    (`coll.schedule`) is a dataflow graph of `!coll.chunk` values resident on ranks: inputs,
    copies, n-ary reductions in operand order, duplicated writes and outputs. Level 3
    (`coll.program`) holds one `coll.rank` region per rank with the instructions it executes
    over the `in`, `out` and `tmp` buffers, transfers matched by id.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

class Coll_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coll_Dialect, mnemonic, traits>;

#endif // COLL_DIALECT_TD
