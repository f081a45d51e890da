// one-shot: allreduce where every rank reads every peer's whole buffer and folds all of them in
// rank order (vLLM's custom allreduce).
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: plan-compile -c allreduce -n 4 -a one-shot --emit program -o - | FileCheck %s --check-prefix=PROGRAM
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics
// RUN: coll-opt %t/topology.mlir --coll-lower=topology=ring:4 -verify-diagnostics

// Level 3 folds the peers' inputs straight from the wire in rank order, each message into the
// accumulator the previous instruction wrote (a chain the executors run as one pass), instead
// of receiving them into scratch first; the chain sits after the rank's last send. Ranks 0 and
// 1 fold into out; rank 2, whose own input comes between two messages, folds into tmp (an
// in-place call aliases its input to out) and its own input opens the last instruction.
// PROGRAM-LABEL: coll.program
// PROGRAM-SAME: scratch 1 attributes {coll.inplace_safe}
// PROGRAM:      coll.rank 0 {
// PROGRAM:        coll.send in[0:1] -> send 3
// PROGRAM-NEXT:   coll.recv_reduce in[0:1], recv 1 {{.*}} -> out[0:1]
// PROGRAM-NEXT:   coll.recv_reduce out[0:1], recv 2 {{.*}} -> out[0:1]
// PROGRAM-NEXT:   coll.recv_reduce out[0:1], recv 3 {{.*}} -> out[0:1]
// PROGRAM:      coll.rank 1 {
// PROGRAM:        coll.send in[0:1] -> send 0
// PROGRAM-NEXT:   coll.recv_reduce recv 0 {{.*}}, in[0:1] -> out[0:1]
// PROGRAM-NEXT:   coll.recv_reduce out[0:1], recv 2 {{.*}} -> out[0:1]
// PROGRAM-NEXT:   coll.recv_reduce out[0:1], recv 3 {{.*}} -> out[0:1]
// PROGRAM:      coll.rank 2 {
// PROGRAM:        coll.send in[0:1] -> send 1
// PROGRAM-NEXT:   coll.recv recv 0 {{.*}} -> tmp[0:1]
// PROGRAM-NEXT:   coll.recv_reduce tmp[0:1], recv 1 {{.*}} -> tmp[0:1]
// PROGRAM-NEXT:   coll.recv_reduce tmp[0:1], in[0:1], recv 3 {{.*}} -> out[0:1]

//--- lower.mlir
// One-shot: each rank reads every peer's whole buffer (remote_reads) and folds all of them in
// rank order, so every rank computes the same tree.
// CHECK-LABEL: coll.schedule @one allreduce ranks 4 op sum algorithm "one-shot" remote_reads
// CHECK: %[[A:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[B:.*]] = coll.input rank 1 chunk 0
// CHECK: %[[C:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[D:.*]] = coll.input rank 3 chunk 0
// CHECK: %[[R0:.*]] = coll.reduce %[[A]], %[[B]], %[[C]], %[[D]] at rank 0 {step = 0 : i64}
// CHECK: coll.output %[[R0]] rank 0 chunk 0
// CHECK: coll.reduce %[[A]], %[[B]], %[[C]], %[[D]] at rank 1 {step = 0 : i64}
// CHECK: coll.reduce %[[A]], %[[B]], %[[C]], %[[D]] at rank 2 {step = 0 : i64}
// CHECK: coll.reduce %[[A]], %[[B]], %[[C]], %[[D]] at rank 3 {step = 0 : i64}
// CHECK-NOT: coll.copy
coll.collective @one allreduce ranks 4 op sum algorithm "one-shot"

// Port model, N = 4: one port receives N-1 whole buffers, N-1 rounds of M.
// COST-LABEL: coll-cost @one: allreduce on 4 ranks, 1 chunk, op sum
// COST-NEXT: alpha rounds:     3
// COST-NEXT: beta coefficient: 3

//--- errors.mlir
// expected-error @+1 {{algorithm 'one-shot' does not implement reduce_scatter (it implements: allreduce)}}
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "one-shot"

//--- topology.mlir
// expected-error @+1 {{the topology has 4 ranks, the collective 8}}
coll.collective @big allreduce ranks 8 op sum algorithm "one-shot"
