// pipelined-tree: a fan-out-k tree (binary by default) streaming the message in `pipeline` chunks.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/pipelined.mlir --coll-lower="params='pipeline=2'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=PIPE
// RUN: coll-opt %t/fanout.mlir --coll-lower="params='fanout=3 pipeline=1'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=FANOUT
// RUN: coll-opt %t/defaults.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=DEFAULTS
// RUN: coll-opt %t/fanout1.mlir --coll-lower="params='fanout=1'" -verify-diagnostics
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

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

//--- defaults.mlir
// Defaults from the spec: fan-out 2, the message in 4 chunks.
// DEFAULTS-LABEL: coll.schedule @bc broadcast ranks 4 chunks 4 root 0 algorithm "pipelined-tree"
coll.collective @bc broadcast ranks 4 algorithm "pipelined-tree"

//--- fanout1.mlir
// A tree needs two children per node at least (the spec's minimum).
// expected-error @+1 {{parameter fanout=1: "1" is below the minimum of 2}}
coll.collective @bc broadcast ranks 4 algorithm "pipelined-tree"

//--- errors.mlir
// expected-error @+1 {{algorithm 'pipelined-tree' does not implement scatter (it implements: broadcast, reduce, allreduce)}}
coll.collective @sc scatter ranks 4 algorithm "pipelined-tree"
