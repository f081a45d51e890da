// coll-verify accepts correct hand-written schedules of every collective kind.
// RUN: coll-opt %collplan_src/plans/examples/schedules.mlir --coll-verify | FileCheck %s

// CHECK-LABEL: coll.schedule @ring_allreduce_fused_3 
// CHECK-LABEL: coll.schedule @ring_allgather_4 
// CHECK-LABEL: coll.schedule @ring_reduce_scatter_3 
// CHECK-LABEL: coll.schedule @direct_alltoall_3 
// CHECK-LABEL: coll.schedule @binomial_broadcast_4 
// CHECK-LABEL: coll.schedule @binomial_reduce_4 
// CHECK-LABEL: coll.schedule @flat_gather_3 
// CHECK-LABEL: coll.schedule @flat_scatter_3 
// CHECK-LABEL: coll.schedule @dissemination_barrier_3 
// CHECK-LABEL: coll.schedule @sliced_allgather_2 
// CHECK-LABEL: coll.schedule @one_shot_remote_reads_2 
// CHECK-LABEL: coll.schedule @binomial_broadcast_1chunk_4 
