// binomial-tree: broadcast, reduce and allreduce (= reduce + broadcast) in ceil(log2 N) rounds.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Broadcast from root 2 of 5 (relative ranks v = r - 2): in round k every v < 2^k sends to
// v + 2^k, so the root reaches 3 (v=1), 4 (v=2), 1 (v=4) and rank 3 reaches 0 (v=3).
// CHECK-LABEL: coll.schedule @bc broadcast ranks 5 root 2 algorithm "binomial-tree"
// CHECK: %[[X:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[A:.*]] = coll.copy %[[X]] to rank 3 {step = 0 : i64}
// CHECK: coll.copy %[[X]] to rank 4 {step = 1 : i64}
// CHECK: coll.copy %[[X]] to rank 1 {step = 2 : i64}
// CHECK: %[[B:.*]] = coll.copy %[[A]] to rank 0 {step = 1 : i64}
// CHECK-NEXT: coll.output %[[B]] rank 0 chunk 0
coll.collective @bc broadcast ranks 5 root 2 algorithm "binomial-tree"

// Reduce to 0 on 4 ranks (MPICH's tree): 3 -> 2 in round 0, 2 folds and sends in round 1,
// the root folds its own chunk and its children 1 and 2 in rank order.
// CHECK-LABEL: coll.schedule @re reduce ranks 4 op sum root 0 algorithm "binomial-tree"
// CHECK: %[[I3:.*]] = coll.input rank 3 chunk 0
// CHECK: %[[C3:.*]] = coll.copy %[[I3]] to rank 2 {step = 0 : i64}
// CHECK: %[[I2:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[S2:.*]] = coll.reduce_send %[[I2]], %[[C3]] at rank 2 to rank 0 {step = 1 : i64}
// CHECK: %[[C1:.*]] = coll.copy %{{.*}} to rank 0 {step = 0 : i64}
// CHECK: %[[I0:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[R:.*]] = coll.reduce %[[I0]], %[[C1]], %[[S2]] at rank 0
// CHECK-NEXT: coll.output %[[R]] rank 0 chunk 0
coll.collective @re reduce ranks 4 op sum algorithm "binomial-tree"

// Allreduce = reduce to 0 (rounds 0..1) + broadcast from 0 (rounds 2..3).
// CHECK-LABEL: coll.schedule @ar allreduce ranks 3 op sum algorithm "binomial-tree"
// CHECK: %[[R:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 0
// CHECK: coll.copy %[[R]] to rank 1 {step = 2 : i64}
// CHECK: coll.copy %[[R]] to rank 2 {step = 3 : i64}
coll.collective @ar allreduce ranks 3 op sum algorithm "binomial-tree"

// Port model: ceil(log2 N) rounds of the whole message each way.
// COST-LABEL: coll-cost @bc: broadcast on 5 ranks, 1 chunk, root 2
// COST-NEXT: alpha rounds:     3
// COST-NEXT: beta coefficient: 3
// COST-LABEL: coll-cost @re: reduce on 4 ranks, 1 chunk, op sum, root 0
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 2
// COST-LABEL: coll-cost @ar: allreduce on 3 ranks, 1 chunk, op sum
// COST-NEXT: alpha rounds:     4
// COST-NEXT: beta coefficient: 4

//--- errors.mlir
// expected-error @+1 {{algorithm 'binomial-tree' does not implement allgather (it implements: broadcast, reduce, allreduce)}}
coll.collective @ag allgather ranks 4 algorithm "binomial-tree"
