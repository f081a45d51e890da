// coll-instantiate's options: the rank count is required, parameters are KEY=VALUE integers
// that the template declares, and the reduction op is one of the four.
// RUN: not coll-opt %s --coll-instantiate 2>&1 | FileCheck %s --check-prefix=NORANKS
// RUN: not coll-opt %s --coll-instantiate="ranks=4 params='rows'" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not coll-opt %s --coll-instantiate="ranks=4 params='rows=two'" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not coll-opt %s --coll-instantiate="ranks=4 params='cols=2'" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not coll-opt %s --coll-instantiate="ranks=4 op=avg" 2>&1 | FileCheck %s --check-prefix=OP
// RUN: coll-opt %s --coll-instantiate="ranks=4 params='rows=2'" --coll-verify | FileCheck %s

// NORANKS: error: coll-instantiate needs ranks=N (N >= 1) to instantiate @rows_then_sum
// SYNTAX: error: coll-instantiate params: "rows": expected KEY=VALUE (e.g. rows=2)
// VALUE: error: coll-instantiate params: "rows=two": the value of rows is not an integer
// UNKNOWN: error: template @rows_then_sum has no parameter 'cols' (its parameters: ranks, rows)
// OP: error: coll-instantiate op 'avg': expected sum, prod, min or max
// CHECK: coll.schedule @rows_then_sum allreduce ranks 4 op sum algorithm "rows_then_sum" attributes {coll.instance = "ranks=4, rows=2"}

// Every rank sends its value to rank 0, which folds them in rank order and sends the sum back.
coll.template @rows_then_sum allreduce params ["ranks", "rows"] {
^bb0(%n: index, %rows: index):
  %c0 = arith.constant 0 : index
  %own = coll.tmpl.input rank %c0 chunk %c0
  %sum = affine.for %r = 1 to %n iter_args(%v = %own) -> (!coll.chunk) {
    %x = coll.tmpl.input rank %r chunk %c0
    %y = coll.tmpl.copy %x to rank %c0
    %s = coll.tmpl.reduce %v, %y at rank %c0
    affine.yield %s : !coll.chunk
  }
  coll.tmpl.output %sum rank %c0 chunk %c0
  affine.for %r = 1 to %n {
    %y = coll.tmpl.copy %sum to rank %r
    coll.tmpl.output %y rank %r chunk %c0
  }
}
