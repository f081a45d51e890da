// ring: ring reduce-scatter / allgather (allreduce = both), over channels, both directions, a
// given or topology-derived rank order.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower="params='bidirectional=true channels=2'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=LANES
// RUN: coll-opt %t/lower.mlir --coll-lower="params='order=0,2,1,3'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=ORDER
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null | FileCheck %s --check-prefix=COST
// RUN: plan-compile -c allreduce -n 4 -a ring --channels 2 --bidirectional --emit mlir | FileCheck %s --check-prefix=LANES
// RUN: coll-opt %t/bad-order.mlir --coll-lower="params='order=0,2,2,3'" -verify-diagnostics
// RUN: coll-opt %t/no-channels.mlir --coll-lower="params='channels=0'" -verify-diagnostics
// RUN: not coll-opt %t/lower.mlir --coll-lower="params='channels=2' topology=ring:4" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=DISJOINT
// RUN: not coll-opt %t/lower.mlir --coll-lower="topology=ring:8" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=RANKS
// RUN: not coll-opt %t/lower.mlir --coll-lower="topology=no-such-preset" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=TOPO

//--- lower.mlir
// CHECK-LABEL: coll.schedule @ar allreduce ranks 4 chunks 4 op sum algorithm "ring"
// Chunk 0 starts at rank 1, is reduced on its way round (fused reduce-then-send), ends at rank 0.
// CHECK:      %[[X:.*]] = coll.copy %{{.*}} to rank 2 {step = 0 : i64}
// CHECK:      %[[P:.*]] = coll.reduce_send %[[X]], %{{.*}} at rank 2 to rank 3 {step = 1 : i64}
// CHECK:      %[[Q:.*]] = coll.reduce_send %[[P]], %{{.*}} at rank 3 to rank 0 {step = 2 : i64}
// CHECK:      %[[R:.*]] = coll.reduce %[[Q]], %{{.*}} at rank 0
// CHECK-NEXT: coll.output %[[R]] rank 0 chunk 0
// Two channels, both ways: four lanes, one slice each.
// LANES-LABEL: coll.schedule @{{.*}} allreduce ranks 4 chunks 4 slices 4 op sum algorithm "ring"
// LANES: {channel = 3 : i64
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

// DISJOINT: error: channels 2 exceed the {{[01]}} link-disjoint rings of topology
// RANKS: error: the topology has 8 ranks, the collective 4
// TOPO: error: topology 'no-such-preset':

//--- bad-order.mlir
// expected-error @+1 {{ring order [0, 2, 2, 3] is not a permutation of 0..3}}
coll.collective @ar allreduce ranks 4 op sum algorithm "ring"

//--- no-channels.mlir
// The spec's range: channels are at least 1.
// expected-error @+1 {{parameter channels=0: "0" is below the minimum of 1}}
coll.collective @ar allreduce ranks 4 op sum algorithm "ring"
