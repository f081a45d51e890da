// coll-lower-ring lowers ring and line collectives to verified schedules.
// RUN: coll-opt %s --coll-lower-ring --coll-verify | FileCheck %s
// RUN: coll-opt %s --coll-lower-ring="bidirectional=true channels=2" --coll-verify | FileCheck %s --check-prefix=LANES
// RUN: coll-opt %s --coll-lower-ring="order=0,2,1,3" --coll-verify | FileCheck %s --check-prefix=ORDER
// RUN: coll-opt %s --coll-lower-ring --coll-cost -o /dev/null | FileCheck %s --check-prefix=COST

// CHECK-LABEL: coll.schedule @ar allreduce ranks 4 chunks 4 op sum algorithm "ring"
// Chunk 0 starts at rank 1, is reduced on its way round (fused reduce-then-send), ends at rank 0.
// CHECK:      %[[X:.*]] = coll.copy %{{.*}} to rank 2 {step = 0 : i64}
// CHECK:      %[[P:.*]] = coll.reduce_send %[[X]], %{{.*}} at rank 2 to rank 3 {step = 1 : i64}
// CHECK:      %[[Q:.*]] = coll.reduce_send %[[P]], %{{.*}} at rank 3 to rank 0 {step = 2 : i64}
// CHECK:      %[[R:.*]] = coll.reduce %[[Q]], %{{.*}} at rank 0
// CHECK-NEXT: coll.output %[[R]] rank 0 chunk 0
// LANES-LABEL: coll.schedule @ar allreduce ranks 4 chunks 4 slices 4 op sum algorithm "ring"
// LANES: {channel = 3 : i64, step = 0 : i64}
// ORDER-LABEL: coll.schedule @ar
// ORDER: coll.copy %{{.*}} to rank 1 {step = 0 : i64}
// COST-LABEL: coll-cost @ar: allreduce on 4 ranks, 4 chunks, op sum
// COST-NEXT:  alpha rounds:     6
// COST-NEXT:  beta coefficient: 1.5
coll.collective @ar allreduce ranks 4 op sum algorithm "ring"

// CHECK-LABEL: coll.schedule @ag allgather ranks 4 algorithm "ring"
// COST-LABEL: coll-cost @ag
// COST-NEXT:  alpha rounds:     3
// COST-NEXT:  beta coefficient: 0.75
coll.collective @ag allgather ranks 4 algorithm "ring"

// CHECK-LABEL: coll.schedule @rs reduce_scatter ranks 4 op max algorithm "line"
// The owner folds left partial, own, right partial.
// CHECK: coll.reduce %{{.*}}, %{{.*}}, %{{.*}} at rank 1
coll.collective @rs reduce_scatter ranks 4 op max algorithm "line"

// A collective of another family is left for its own pass.
// CHECK-LABEL: coll.collective @bc broadcast ranks 4 algorithm "binomial-tree"
coll.collective @bc broadcast ranks 4 algorithm "binomial-tree"
