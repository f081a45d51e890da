// mesh-single-step: allreduce where every rank duplicates its whole input to all peers and each
// folds all of them in rank order.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/flat.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=FLAT
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Single step: every rank duplicates its input to all peers (ring-shift order), and each rank
// folds all six in rank order.
// CHECK-LABEL: coll.schedule @single allreduce ranks 6 op sum algorithm "mesh-single-step"
// CHECK: coll.dup %{{[0-9#]+}} to ranks [1, 2, 3, 4, 5] {step = 0 : i64}
// CHECK: coll.dup %{{[0-9#]+}} to ranks [2, 3, 4, 5, 0] {step = 0 : i64}
// CHECK: coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 {step = 1 : i64}
coll.collective @single allreduce ranks 6 op sum algorithm "mesh-single-step"

// Port model: every rank sends all of M to N-1 peers through one port.
// COST-LABEL: coll-cost @single: allreduce on 6 ranks, 1 chunk, op sum
// COST-NEXT: alpha rounds:     5
// COST-NEXT: beta coefficient: 5

//--- flat.mlir
// FLAT-LABEL: coll.schedule @single allreduce ranks 3 op sum algorithm "mesh-single-step"
// FLAT: coll.dup %{{[0-9#]+}} to ranks [2, 0] {step = 0 : i64}
coll.collective @single allreduce ranks 3 op sum algorithm "mesh-single-step"

//--- errors.mlir
// expected-error @+1 {{algorithm 'mesh-single-step' does not implement allgather (it implements: allreduce)}}
coll.collective @ag allgather ranks 4 algorithm "mesh-single-step"
