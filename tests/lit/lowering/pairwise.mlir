// pairwise: all-to-all in N-1 rounds, partner r XOR k for powers of two, (r + k) mod N otherwise.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// N = 4 is a power of two: in round k partners r and r XOR k swap blocks.
// CHECK-LABEL: coll.schedule @a2a alltoall ranks 4 algorithm "pairwise"
// CHECK: %[[OWN:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: coll.output %[[OWN]] rank 0 chunk 0
// CHECK: %[[B01:.*]] = coll.input rank 0 chunk 1
// CHECK-NEXT: %[[C01:.*]] = coll.copy %[[B01]] to rank 1 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[C01]] rank 1 chunk 0
// CHECK: %[[B10:.*]] = coll.input rank 1 chunk 0
// CHECK-NEXT: %[[C10:.*]] = coll.copy %[[B10]] to rank 0 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[C10]] rank 0 chunk 1
// CHECK: %[[B02:.*]] = coll.input rank 0 chunk 2
// CHECK-NEXT: coll.copy %[[B02]] to rank 2 {step = 1 : i64}
// CHECK: %[[B03:.*]] = coll.input rank 0 chunk 3
// CHECK-NEXT: coll.copy %[[B03]] to rank 3 {step = 2 : i64}
coll.collective @a2a alltoall ranks 4 algorithm "pairwise"

// N = 3: in round k rank r sends to r + k and hears from r - k.
// CHECK-LABEL: coll.schedule @a2a3 alltoall ranks 3 algorithm "pairwise"
// CHECK: coll.input rank 0 chunk 1
// CHECK-NEXT: coll.copy %{{.*}} to rank 1 {step = 0 : i64}
// CHECK: coll.input rank 2 chunk 0
// CHECK-NEXT: coll.copy %{{.*}} to rank 0 {step = 0 : i64}
// CHECK: coll.input rank 0 chunk 2
// CHECK-NEXT: coll.copy %{{.*}} to rank 2 {step = 1 : i64}
coll.collective @a2a3 alltoall ranks 3 algorithm "pairwise"

// Port model: N-1 rounds, β = (N-1)/N.
// COST-LABEL: coll-cost @a2a: alltoall on 4 ranks, 4 chunks
// COST-NEXT: alpha rounds:     3
// COST-NEXT: beta coefficient: 0.75
// COST-LABEL: coll-cost @a2a3: alltoall on 3 ranks, 3 chunks
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.666667

//--- errors.mlir
// expected-error @+1 {{algorithm 'pairwise' does not implement allgather (it implements: alltoall)}}
coll.collective @ag allgather ranks 4 algorithm "pairwise"
