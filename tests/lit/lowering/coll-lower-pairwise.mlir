// coll-lower-pairwise: pairwise-exchange all-to-all, dissemination and pairwise barriers.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower-pairwise --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower-pairwise --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower-pairwise -verify-diagnostics

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

// Dissemination on 3: rank r tells r + 1, then r + 2, merging what it has heard.
// CHECK-LABEL: coll.schedule @dis barrier ranks 3 algorithm "dissemination"
// CHECK: %[[T0:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[T2:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[FROM2:.*]] = coll.copy %[[T2]] to rank 0 {step = 0 : i64}
// CHECK: %[[H0:.*]] = coll.reduce %[[T0]], %[[FROM2]] at rank 0 {step = 0 : i64}
// CHECK: coll.copy %[[H0]] to rank 2 {step = 1 : i64}
coll.collective @dis barrier ranks 3 algorithm "dissemination"

// Pairwise barrier on 3: rank 0 reports to 1, 1 and 2 exchange, 1 tells 0.
// CHECK-LABEL: coll.schedule @pb barrier ranks 3 algorithm "pairwise-barrier"
// CHECK: coll.copy %{{.*}} to rank 1 {step = 0 : i64}
// CHECK: coll.copy %{{.*}} to rank 2 {step = 1 : i64}
// CHECK: coll.copy %{{.*}} to rank 1 {step = 1 : i64}
// CHECK: %[[DONE:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 1 {step = 1 : i64}
// CHECK: %[[BACK:.*]] = coll.copy %[[DONE]] to rank 0 {step = 2 : i64}
// CHECK-NEXT: coll.output %[[BACK]] rank 0 chunk 0
coll.collective @pb barrier ranks 3 algorithm "pairwise-barrier"

// Port model: all-to-all N-1 rounds and β = (N-1)/N; dissemination ceil(log2 N) rounds;
// the pairwise barrier log2 of the power of two below N, plus the fold and the unfold.
// COST-LABEL: coll-cost @a2a: alltoall on 4 ranks, 4 chunks
// COST-NEXT: alpha rounds:     3
// COST-NEXT: beta coefficient: 0.75
// COST-LABEL: coll-cost @a2a3: alltoall on 3 ranks, 3 chunks
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.666667
// COST-LABEL: coll-cost @dis: barrier on 3 ranks
// COST-NEXT: alpha rounds:     2
// COST-LABEL: coll-cost @pb: barrier on 3 ranks
// COST-NEXT: alpha rounds:     3

//--- errors.mlir
// expected-error @+1 {{algorithm 'pairwise' does not implement allgather (it implements: alltoall)}}
coll.collective @ag allgather ranks 4 algorithm "pairwise"

// -----

// expected-error @+1 {{algorithm 'dissemination' does not implement alltoall (it implements: barrier)}}
coll.collective @a2a alltoall ranks 4 algorithm "dissemination"
