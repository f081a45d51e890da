// coll-lower-tree: binomial tree, pipelined fan-out-k tree and double binary tree.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/binomial.mlir --coll-lower-tree --coll-verify | FileCheck %s
// RUN: coll-opt %t/binomial.mlir --coll-lower-tree --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/pipelined.mlir --coll-lower-tree="pipeline=2" --coll-verify | FileCheck %s --check-prefix=PIPE
// RUN: coll-opt %t/fanout.mlir --coll-lower-tree="fanout=3 pipeline=1" --coll-verify | FileCheck %s --check-prefix=FANOUT
// RUN: coll-opt %t/dbt.mlir --coll-lower-tree="pipeline=1" --coll-verify | FileCheck %s --check-prefix=DBT
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower-tree -verify-diagnostics
// RUN: coll-opt %t/fanout1.mlir --coll-lower-tree=fanout=1 -verify-diagnostics
// RUN: coll-opt %t/pipeline0.mlir --coll-lower-tree=pipeline=0 -verify-diagnostics

//--- binomial.mlir
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

//--- pipelined.mlir
// Binary tree 0 -> {1, 2}, 1 -> {3}, message in 2 chunks: the root sends chunk c to child j
// in step 2c + j, and rank 1 forwards each chunk one step after it arrives.
// PIPE-LABEL: coll.schedule @bc broadcast ranks 4 chunks 2 root 0 algorithm "pipelined-tree"
// PIPE: %[[X0:.*]] = coll.input rank 0 chunk 0
// PIPE: %[[A0:.*]] = coll.copy %[[X0]] to rank 1 {step = 0 : i64}
// PIPE: coll.copy %[[X0]] to rank 2 {step = 1 : i64}
// PIPE: coll.copy %[[A0]] to rank 3 {step = 1 : i64}
// PIPE: %[[X1:.*]] = coll.input rank 0 chunk 1
// PIPE: %[[A1:.*]] = coll.copy %[[X1]] to rank 1 {step = 2 : i64}
// PIPE: coll.copy %[[X1]] to rank 2 {step = 3 : i64}
// PIPE: coll.copy %[[A1]] to rank 3 {step = 3 : i64}
coll.collective @bc broadcast ranks 4 algorithm "pipelined-tree"

// Allreduce on 3: the root folds chunk 0 after step 1 and broadcasts it from step 2 while
// chunk 1 is still being reduced (steps 2..3).
// PIPE-LABEL: coll.schedule @ar allreduce ranks 3 chunks 2 op sum algorithm "pipelined-tree"
// PIPE: %[[R0:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 0
// PIPE: coll.copy %[[R0]] to rank 1 {step = 2 : i64}
// PIPE: coll.copy %[[R0]] to rank 2 {step = 3 : i64}
// PIPE: coll.copy %{{.*}} to rank 0 {step = 2 : i64}
// PIPE: coll.copy %{{.*}} to rank 0 {step = 3 : i64}
// PIPE: %[[R1:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 0
// PIPE: coll.copy %[[R1]] to rank 1 {step = 4 : i64}
// PIPE: coll.copy %[[R1]] to rank 2 {step = 5 : i64}
coll.collective @ar allreduce ranks 3 op sum algorithm "pipelined-tree"

//--- fanout.mlir
// Fan-out 3 rooted at 1: relative heap order, root 1 -> {2, 3, 4}, rank 2 -> {0}.
// FANOUT-LABEL: coll.schedule @re reduce ranks 5 op sum root 1 algorithm "pipelined-tree"
// FANOUT: %[[I0:.*]] = coll.input rank 0 chunk 0
// FANOUT: %[[C0:.*]] = coll.copy %[[I0]] to rank 2
// FANOUT: coll.reduce_send %{{.*}}, %[[C0]] at rank 2 to rank 1
// FANOUT: %[[R:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} at rank 1
// FANOUT-NEXT: coll.output %[[R]] rank 1 chunk 0
coll.collective @re reduce ranks 5 op sum root 1 algorithm "pipelined-tree"

//--- dbt.mlir
// Two trees on 4 ranks: tree 0 (slice 0) is 0 -> 2 -> {1, 3}, tree 1 (slice 1) its mirror
// 3 -> 1 -> {0, 2}: the inner node of one is a leaf of the other.
// DBT-LABEL: coll.schedule @ar allreduce ranks 4 slices 2 op sum algorithm "double-binary-tree"
// DBT: coll.reduce_send %{{.*}}, %{{.*}}, %{{.*}} at rank 2 to rank 0 {channel = 0 : i64
// DBT: %[[R0:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 0 {channel = 0 : i64}
// DBT-NEXT: coll.output %[[R0]] rank 0 chunk 0 slice 0
// DBT: coll.reduce_send %{{.*}}, %{{.*}}, %{{.*}} at rank 1 to rank 3 {channel = 1 : i64
// DBT: %[[R1:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 3 {channel = 1 : i64}
// DBT-NEXT: coll.output %[[R1]] rank 3 chunk 0 slice 1
coll.collective @ar allreduce ranks 4 op sum algorithm "double-binary-tree"

//--- errors.mlir
// expected-error @+1 {{algorithm 'double-binary-tree' does not implement broadcast (it implements: allreduce)}}
coll.collective @bc broadcast ranks 4 algorithm "double-binary-tree"

// -----

// expected-error @+1 {{algorithm 'binomial-tree' does not implement allgather (it implements: broadcast, reduce, allreduce)}}
coll.collective @ag allgather ranks 4 algorithm "binomial-tree"

//--- fanout1.mlir
// expected-error @+1 {{fanout must be at least 2 (got 1)}}
coll.collective @bc broadcast ranks 4 algorithm "pipelined-tree"

//--- pipeline0.mlir
// expected-error @+1 {{pipeline must be at least 1 chunk (got 0)}}
coll.collective @ar allreduce ranks 4 op sum algorithm "double-binary-tree"
