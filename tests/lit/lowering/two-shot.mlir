// two-shot: allreduce by a reduce-scatter of direct reads, then an allgather of the reduced
// chunks by direct reads.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Two-shot: rank c folds chunk c of every buffer (step 0), then every rank reads it (step 1).
// CHECK-LABEL: coll.schedule @two allreduce ranks 4 chunks 4 op max algorithm "two-shot" remote_reads
// CHECK: %[[R:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} at rank 1 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[R]] rank 1 chunk 1
// CHECK-NEXT: coll.copy %[[R]] to rank 2 {step = 1 : i64}
// CHECK: coll.copy %[[R]] to rank 3 {step = 1 : i64}
// CHECK: coll.copy %[[R]] to rank 0 {step = 1 : i64}
coll.collective @two allreduce ranks 4 op max algorithm "two-shot"

// Port model, N = 4: 2(N-1) rounds of M/N.
// COST-LABEL: coll-cost @two: allreduce on 4 ranks, 4 chunks, op max
// COST-NEXT: alpha rounds:     6
// COST-NEXT: beta coefficient: 1.5

//--- errors.mlir
// expected-error @+1 {{algorithm 'two-shot' does not implement broadcast (it implements: allreduce)}}
coll.collective @bc broadcast ranks 4 root 1 algorithm "two-shot"
