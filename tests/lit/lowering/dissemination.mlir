// dissemination: barrier in ceil(log2 N) rounds, rank r telling r + 2^k what it has heard of.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Dissemination on 3: rank r tells r + 1, then r + 2, merging what it has heard.
// CHECK-LABEL: coll.schedule @dis barrier ranks 3 algorithm "dissemination"
// CHECK: %[[T0:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[T2:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[FROM2:.*]] = coll.copy %[[T2]] to rank 0 {step = 0 : i64}
// CHECK: %[[H0:.*]] = coll.reduce %[[T0]], %[[FROM2]] at rank 0 {step = 0 : i64}
// CHECK: coll.copy %[[H0]] to rank 2 {step = 1 : i64}
coll.collective @dis barrier ranks 3 algorithm "dissemination"

// COST-LABEL: coll-cost @dis: barrier on 3 ranks
// COST-NEXT: alpha rounds:     2

//--- errors.mlir
// expected-error @+1 {{algorithm 'dissemination' does not implement alltoall (it implements: barrier)}}
coll.collective @a2a alltoall ranks 4 algorithm "dissemination"
