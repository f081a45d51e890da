// coll-lower-rdh: recursive doubling / halving, Rabenseifner, and RDH over device dimensions.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower-rdh --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower-rdh --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/dims.mlir --coll-lower-rdh="dims=2 ranks-per-device=2" --coll-verify | FileCheck %s --check-prefix=DIMS
// RUN: coll-opt %t/topology.mlir --coll-lower-rdh="topology=torus:2x2x2" --coll-verify | FileCheck %s --check-prefix=TOPO
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower-rdh -verify-diagnostics
// RUN: coll-opt %t/bad-dims.mlir --coll-lower-rdh="dims=2,3 ranks-per-device=2" -verify-diagnostics
// RUN: coll-opt %t/zero-dim.mlir --coll-lower-rdh="dims=4,0" -verify-diagnostics
// RUN: coll-opt %t/bad-device.mlir --coll-lower-rdh="topology=torus:2x2x2 ranks-per-device=4" -verify-diagnostics

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

// Reduce-scatter by halving on 4: blocks 2 and 3 go to distance 2 first; the next send folds
// the received partial on the way (reduce_send); the owner folds the last three operands.
// CHECK-LABEL: coll.schedule @rs reduce_scatter ranks 4 op sum algorithm "recursive-halving"
// CHECK: %[[B02:.*]] = coll.input rank 0 chunk 2
// CHECK: %[[B21:.*]] = coll.input rank 2 chunk 1
// CHECK: %[[X:.*]] = coll.copy %[[B21]] to rank 0 {step = 0 : i64}
// CHECK: coll.reduce_send %{{.*}}, %[[X]] at rank 0 to rank 1 {step = 1 : i64}
// CHECK: %[[S:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 0
// CHECK-NEXT: coll.output %[[S]] rank 0 chunk 0
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "recursive-halving"

// Rabenseifner on 3: the message is cut in 2 (the power of two below 3); rank 0 folds into 1,
// then halving between 1 and 2, doubling between them, and 1 sends both halves back to 0.
// CHECK-LABEL: coll.schedule @rab allreduce ranks 3 chunks 2 op sum algorithm "rabenseifner"
// CHECK: coll.reduce_send %{{.*}}, %{{.*}} at rank 1 to rank 2 {step = 1 : i64}
// CHECK: %[[H0:.*]] = coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 1
// CHECK: %[[H1:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 2
// CHECK: coll.copy %[[H0]] to rank 2 {step = 2 : i64}
// CHECK: %[[G1:.*]] = coll.copy %[[H1]] to rank 1 {step = 2 : i64}
// CHECK: coll.copy %[[H0]] to rank 0 {step = 3 : i64}
// CHECK: coll.copy %[[G1]] to rank 0 {step = 3 : i64}
coll.collective @rab allreduce ranks 3 op sum algorithm "rabenseifner"

// The port model counts one message per block, so halving / doubling show N-1 rounds (not
// log2 N) and Rabenseifner on 4 shows 2(N-1) = 6 (not 2 log2 N = 4); β is the textbook's.
// COST-LABEL: coll-cost @rd: allreduce on 3 ranks, 1 chunk, op sum
// COST-NEXT: alpha rounds:     3
// COST-LABEL: coll-cost @ag: allgather on 4 ranks, 4 chunks
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.75
// COST-LABEL: coll-cost @rs: reduce_scatter on 4 ranks, 4 chunks, op sum
// COST-NEXT: alpha rounds:     2
// COST-NEXT: beta coefficient: 0.75
// COST-LABEL: coll-cost @rab4: allreduce on 4 ranks, 4 chunks, op sum
// COST-NEXT: alpha rounds:     4
// COST-NEXT: beta coefficient: 1.5
coll.collective @rab4 allreduce ranks 4 op sum algorithm "rabenseifner"

//--- dims.mlir
// Two devices of two ranks: the intra-device stage first (0 <-> 1, 2 <-> 3, step 0), then
// across devices (0 <-> 2, 1 <-> 3, step 1).
// DIMS-LABEL: coll.schedule @rs reduce_scatter ranks 4 op sum algorithm "rdh"
// DIMS: coll.copy %{{.*}} to rank 1 {step = 0 : i64}
// DIMS: coll.copy %{{.*}} to rank 0 {step = 0 : i64}
// DIMS: coll.reduce_send %{{.*}}, %{{.*}} at rank 0 to rank 2 {step = 1 : i64}
// DIMS: coll.reduce_send %{{.*}}, %{{.*}} at rank 1 to rank 3 {step = 1 : i64}
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "rdh"

//--- topology.mlir
// A 2x2 torus of 2-rank chips: stages [2, 2, 2], so 3 halving + 3 doubling steps.
// TOPO-LABEL: coll.schedule @ar allreduce ranks 8 chunks 8 op sum algorithm "rdh"
// TOPO: {step = 5 : i64}
// TOPO-NOT: step = 6
coll.collective @ar allreduce ranks 8 op sum algorithm "rdh"

//--- errors.mlir
// expected-error @+1 {{algorithm 'recursive-halving' does not implement allreduce (it implements: reduce_scatter)}}
coll.collective @ar allreduce ranks 4 op sum algorithm "recursive-halving"

// -----

// expected-error @+1 {{algorithm 'rabenseifner' does not implement allgather (it implements: allreduce)}}
coll.collective @ag allgather ranks 4 algorithm "rabenseifner"

//--- bad-dims.mlir
// expected-error @+1 {{dims [2, 3] give 6 devices, but 16 ranks / 2 ranks per device = 8 devices}}
coll.collective @ar allreduce ranks 16 op sum algorithm "rdh"

//--- zero-dim.mlir
// expected-error @+1 {{dims [4, 0] must all be at least 1}}
coll.collective @ag allgather ranks 4 algorithm "rdh"

//--- bad-device.mlir
// expected-error @+1 {{ranks per device 4 disagrees with topology 'torus-2x2x2' (2 ranks per device)}}
coll.collective @ar allreduce ranks 8 op sum algorithm "rdh"
