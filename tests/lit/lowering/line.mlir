// line: allgather and reduce-scatter on an open chain, blocks travelling from their owner towards
// both ends.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower="params='order=3,2,1,0'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=ORDER
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower -verify-diagnostics
// RUN: coll-opt %t/bad-order.mlir --coll-lower="params='order=0,1,1,3'" -verify-diagnostics

//--- lower.mlir
// The owner folds left partial, own, right partial.
// CHECK-LABEL: coll.schedule @rs reduce_scatter ranks 4 op max algorithm "line"
// CHECK: coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 1
// Along the reversed chain, rank 3 is the first end: its block goes to rank 2 first.
// ORDER-LABEL: coll.schedule @rs reduce_scatter ranks 4 op max algorithm "line"
coll.collective @rs reduce_scatter ranks 4 op max algorithm "line"

// Rank 0's block travels 0 -> 1 -> 2 -> 3, one hop per step.
// CHECK-LABEL: coll.schedule @ag allgather ranks 4 algorithm "line"
// CHECK: %[[X:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[A:.*]] = coll.copy %[[X]] to rank 1 {step = 0 : i64}
// CHECK: %[[B:.*]] = coll.copy %[[A]] to rank 2 {step = 1 : i64}
// CHECK: coll.copy %[[B]] to rank 3 {step = 2 : i64}
// ORDER-LABEL: coll.schedule @ag allgather ranks 4 algorithm "line"
// ORDER: %[[Y:.*]] = coll.input rank 3 chunk 0
// ORDER: coll.copy %[[Y]] to rank 2 {step = 0 : i64}
coll.collective @ag allgather ranks 4 algorithm "line"

//--- errors.mlir
// expected-error @+1 {{algorithm 'line' does not implement allreduce (it implements: allgather, reduce_scatter)}}
coll.collective @ar allreduce ranks 4 op sum algorithm "line"

//--- bad-order.mlir
// expected-error @+1 {{ring order [0, 1, 1, 3] is not a permutation of 0..3}}
coll.collective @ag allgather ranks 4 algorithm "line"
