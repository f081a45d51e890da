// recursive-halving: reduce-scatter in log2 N rounds (other rank counts folded).
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Reduce-scatter by halving on 4: blocks 2 and 3 go to distance 2 first; the next send folds
// the received partial on the way (reduce_send); the owner folds the last three operands.
// CHECK-LABEL: coll.schedule @rs reduce_scatter ranks 4 op sum algorithm "recursive-halving"
// CHECK: %[[B02:.*]] = coll.input rank 0 chunk 2
// CHECK: %[[B21:.*]] = coll.input rank 2 chunk 1
// CHECK: %[[X:.*]] = coll.copy %[[B21]] to rank 0 {step = 0 : i64}
// CHECK: coll.reduce_send %{{.*}}, %[[X]] at rank 0 to rank 1 {step = 1 : i64}
// CHECK: %[[S:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 0
// CHECK-NEXT: coll.output %[[S]] rank 0 chunk 0
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "recursive-halving"

// COST-LABEL: coll-cost @rs: reduce_scatter on 4 ranks, 4 chunks, op sum
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.75

//--- errors.mlir
// expected-error @+1 {{algorithm 'recursive-halving' does not implement allreduce (it implements: reduce_scatter)}}
coll.collective @ar allreduce ranks 4 op sum algorithm "recursive-halving"
