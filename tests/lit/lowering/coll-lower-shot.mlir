// coll-lower-shot: one-shot and two-shot allreduce by direct reads of peers' buffers.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower-shot --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower-shot --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower-shot -verify-diagnostics
// RUN: coll-opt %t/topology.mlir --coll-lower-shot=topology=ring:4 -verify-diagnostics

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

// Two-shot: rank c folds chunk c of every buffer (step 0), then every rank reads it (step 1).
// CHECK-LABEL: coll.schedule @two allreduce ranks 4 chunks 4 op max algorithm "two-shot" remote_reads
// CHECK: %[[R:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} at rank 1 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[R]] rank 1 chunk 1
// CHECK-NEXT: coll.copy %[[R]] to rank 2 {step = 1 : i64}
// CHECK: coll.copy %[[R]] to rank 3 {step = 1 : i64}
// CHECK: coll.copy %[[R]] to rank 0 {step = 1 : i64}
coll.collective @two allreduce ranks 4 op max algorithm "two-shot"

// Port model, N = 4: one-shot receives N-1 whole buffers through one port (N-1 rounds of M);
// two-shot 2(N-1) rounds of M/N.
// COST-LABEL: coll-cost @one: allreduce on 4 ranks, 1 chunk, op sum
// COST-NEXT: alpha rounds:     3
// COST-NEXT: beta coefficient: 3
// COST-LABEL: coll-cost @two: allreduce on 4 ranks, 4 chunks, op max
// COST-NEXT: alpha rounds:     6
// COST-NEXT: beta coefficient: 1.5

//--- errors.mlir
// expected-error @+1 {{algorithm 'one-shot' does not implement reduce_scatter (it implements: allreduce)}}
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "one-shot"

// -----

// expected-error @+1 {{algorithm 'two-shot' does not implement broadcast (it implements: allreduce)}}
coll.collective @bc broadcast ranks 4 root 1 algorithm "two-shot"

// -----

// expected-error @+1 {{unknown algorithm 'three-shot'}}
coll.collective @three allreduce ranks 4 op sum algorithm "three-shot"

//--- topology.mlir
// expected-error @+1 {{the topology has 4 ranks, the collective 8}}
coll.collective @big allreduce ranks 8 op sum algorithm "one-shot"
