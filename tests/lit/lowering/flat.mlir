// flat: the root sends to / hears from every rank directly, one peer per round.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower -verify-diagnostics
// RUN: not coll-opt %t/lower.mlir --coll-lower="params='channels=2'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=TAKES

//--- lower.mlir
// The root serves root+1, root+2, ... (mod N), one per step.
// CHECK-LABEL: coll.schedule @bc broadcast ranks 3 root 1 algorithm "flat"
// CHECK: %[[X:.*]] = coll.input rank 1 chunk 0
// CHECK-NEXT: coll.output %[[X]] rank 1 chunk 0
// CHECK-NEXT: %[[A:.*]] = coll.copy %[[X]] to rank 2 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[A]] rank 2 chunk 0
// CHECK-NEXT: %[[B:.*]] = coll.copy %[[X]] to rank 0 {step = 1 : i64}
// CHECK-NEXT: coll.output %[[B]] rank 0 chunk 0
coll.collective @bc broadcast ranks 3 root 1 algorithm "flat"

// Scatter: block r of the root goes to rank r.
// CHECK-LABEL: coll.schedule @sc scatter ranks 3 root 0 algorithm "flat"
// CHECK: %[[B1:.*]] = coll.input rank 0 chunk 1
// CHECK-NEXT: %[[C1:.*]] = coll.copy %[[B1]] to rank 1 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[C1]] rank 1 chunk 0
// CHECK: %[[B2:.*]] = coll.input rank 0 chunk 2
// CHECK-NEXT: %[[C2:.*]] = coll.copy %[[B2]] to rank 2 {step = 1 : i64}
// CHECK-NEXT: coll.output %[[C2]] rank 2 chunk 0
coll.collective @sc scatter ranks 3 root 0 algorithm "flat"

// Gather: rank r's block lands in chunk r of the root's output.
// CHECK-LABEL: coll.schedule @ga gather ranks 3 root 2 algorithm "flat"
// CHECK: %[[G0:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: %[[H0:.*]] = coll.copy %[[G0]] to rank 2 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[H0]] rank 2 chunk 0
coll.collective @ga gather ranks 3 root 2 algorithm "flat"

// Reduce: the root folds every rank's chunk in rank order (0, 1, 2), its own in place.
// CHECK-LABEL: coll.schedule @re reduce ranks 3 op sum root 1 algorithm "flat"
// CHECK: %[[OWN:.*]] = coll.input rank 1 chunk 0
// CHECK: %[[F2:.*]] = coll.copy %{{.*}} to rank 1 {step = 0 : i64}
// CHECK: %[[F0:.*]] = coll.copy %{{.*}} to rank 1 {step = 1 : i64}
// CHECK-NEXT: %[[R:.*]] = coll.reduce %[[F0]], %[[OWN]], %[[F2]] at rank 1
// CHECK-NEXT: coll.output %[[R]] rank 1 chunk 0
coll.collective @re reduce ranks 3 op sum root 1 algorithm "flat"

// Port model: N-1 rounds; the whole message each for broadcast and reduce, a block each
// for scatter and gather.
// Flat declares no parameter: one nothing here takes is an error, not ignored.
// TAKES: error: params: channels=2: no algorithm lowered here takes channels (lowered: flat)
// COST-LABEL: coll-cost @bc: broadcast on 3 ranks, 1 chunk, root 1
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 2
// COST-LABEL: coll-cost @sc
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.666667
// COST-LABEL: coll-cost @ga
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.666667
// COST-LABEL: coll-cost @re
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 2

//--- errors.mlir
// expected-error @+1 {{algorithm 'flat' does not implement allreduce (it implements: broadcast, scatter, gather, reduce)}}
coll.collective @ar allreduce ranks 4 op sum algorithm "flat"

// -----

// expected-error @+1 {{root 4 is out of range}}
coll.collective @bc broadcast ranks 4 root 4 algorithm "flat"
