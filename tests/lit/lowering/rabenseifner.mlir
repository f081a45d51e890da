// rabenseifner: allreduce = reduce-scatter by recursive halving + allgather by recursive
// doubling, 2 log2 N rounds.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Rabenseifner on 3: the message is cut in 2 (the power of two below 3); rank 0 folds into 1,
// then halving between 1 and 2, doubling between them, and 1 sends both halves back to 0.
// CHECK-LABEL: coll.schedule @rab allreduce ranks 3 chunks 2 op sum algorithm "rabenseifner"
// CHECK: coll.reduce_send %{{.*}}, %{{.*}} at rank 1 to rank 2 {step = 1 : i64}
// CHECK: %[[H0:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 1
// CHECK: %[[H1:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 2
// CHECK: coll.copy %[[H0]] to rank 2 {step = 2 : i64}
// CHECK: %[[G1:.*]] = coll.copy %[[H1]] to rank 1 {step = 2 : i64}
// CHECK: coll.copy %[[H0]] to rank 0 {step = 3 : i64}
// CHECK: coll.copy %[[G1]] to rank 0 {step = 3 : i64}
coll.collective @rab allreduce ranks 3 op sum algorithm "rabenseifner"

// On 4 ranks: 2 log2 N = 4 rounds, β = 2(N-1)/N.
// COST-LABEL: coll-cost @rab4: allreduce on 4 ranks, 4 chunks, op sum
// COST-NEXT: alpha rounds:     4
// COST-NEXT: beta coefficient: 1.5
coll.collective @rab4 allreduce ranks 4 op sum algorithm "rabenseifner"

//--- errors.mlir
// expected-error @+1 {{algorithm 'rabenseifner' does not implement allgather (it implements: allreduce)}}
coll.collective @ag allgather ranks 4 algorithm "rabenseifner"
