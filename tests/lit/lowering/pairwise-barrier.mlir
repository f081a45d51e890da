// pairwise-barrier: barrier by pairwise exchanges with r XOR 2^k; other rank counts fold the
// first ranks in pairs.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Pairwise barrier on 3: rank 0 reports to 1, 1 and 2 exchange, 1 tells 0.
// CHECK-LABEL: coll.schedule @pb barrier ranks 3 algorithm "pairwise-barrier"
// CHECK: coll.copy %{{.*}} to rank 1 {step = 0 : i64}
// CHECK: coll.copy %{{.*}} to rank 2 {step = 1 : i64}
// CHECK: coll.copy %{{.*}} to rank 1 {step = 1 : i64}
// CHECK: %[[DONE:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 1 {step = 1 : i64}
// CHECK: %[[BACK:.*]] = coll.copy %[[DONE]] to rank 0 {step = 2 : i64}
// CHECK-NEXT: coll.output %[[BACK]] rank 0 chunk 0
coll.collective @pb barrier ranks 3 algorithm "pairwise-barrier"

// log2 of the power of two below N, plus the fold and the unfold.
// COST-LABEL: coll-cost @pb: barrier on 3 ranks
// COST-NEXT: alpha rounds:     3

//--- errors.mlir
// expected-error @+1 {{algorithm 'pairwise-barrier' does not implement allreduce (it implements: barrier)}}
coll.collective @ar allreduce ranks 4 op sum algorithm "pairwise-barrier"
