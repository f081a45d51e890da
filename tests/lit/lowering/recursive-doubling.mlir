// recursive-doubling: allgather of growing blocks and allreduce of the whole message in log2 N
// rounds; other rank counts fold the extra ranks in first and out last.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Whole-message recursive doubling on 3 ranks: rank 0 folds into rank 1 first (step 0),
// 1 and 2 exchange and both fold the lower rank's value first (step 1), 1 hands the result
// back to 0 (step 2).
// CHECK-LABEL: coll.schedule @rd allreduce ranks 3 op sum algorithm "recursive-doubling"
// CHECK: %[[I0:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[I1:.*]] = coll.input rank 1 chunk 0
// CHECK: %[[I2:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[F:.*]] = coll.copy %[[I0]] to rank 1 {step = 0 : i64}
// CHECK: %[[V1:.*]] = coll.reduce %[[F]], %[[I1]] at rank 1 {step = 0 : i64}
// CHECK: %[[TO2:.*]] = coll.copy %[[V1]] to rank 2 {step = 1 : i64}
// CHECK: %[[TO1:.*]] = coll.copy %[[I2]] to rank 1 {step = 1 : i64}
// CHECK: %[[R1:.*]] = coll.reduce %[[V1]], %[[TO1]] at rank 1 {step = 1 : i64}
// CHECK: %[[R2:.*]] = coll.reduce %[[TO2]], %[[I2]] at rank 2 {step = 1 : i64}
// CHECK: %[[R0:.*]] = coll.copy %[[R1]] to rank 0 {step = 2 : i64}
// CHECK: coll.output %[[R0]] rank 0 chunk 0
// CHECK: coll.output %[[R1]] rank 1 chunk 0
// CHECK: coll.output %[[R2]] rank 2 chunk 0
coll.collective @rd allreduce ranks 3 op sum algorithm "recursive-doubling"

// Allgather by doubling on 4: partners at distance 1, then 2 with both blocks held.
// CHECK-LABEL: coll.schedule @ag allgather ranks 4 algorithm "recursive-doubling"
// CHECK: %[[A0:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[A01:.*]] = coll.copy %[[A0]] to rank 1 {step = 0 : i64}
// CHECK: coll.copy %[[A0]] to rank 2 {step = 1 : i64}
// CHECK: coll.copy %[[A01]] to rank 3 {step = 1 : i64}
coll.collective @ag allgather ranks 4 algorithm "recursive-doubling"

// The port model joins a round's blocks to one peer into one message: log2 N rounds.
// COST-LABEL: coll-cost @rd: allreduce on 3 ranks, 1 chunk, op sum
// COST-NEXT: alpha rounds:     3
// COST-LABEL: coll-cost @ag: allgather on 4 ranks, 4 chunks
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.75

//--- errors.mlir
// expected-error @+1 {{algorithm 'recursive-doubling' does not implement reduce_scatter (it implements: allgather, allreduce)}}
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "recursive-doubling"
