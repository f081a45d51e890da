// coll-cost reports the textbook α-β figures of the hand-written schedules.
// RUN: coll-opt %collplan_src/plans/examples/schedules.mlir --coll-cost -o /dev/null | FileCheck %s
// RUN: coll-opt %collplan_src/plans/examples/schedules.mlir --coll-cost=annotate -o - | FileCheck %s --check-prefix=ANNOTATE
// RUN: coll-opt %collplan_src/plans/examples/schedules.mlir --coll-cost=per-rank -o /dev/null | FileCheck %s --check-prefix=RANKS
// RUN: coll-opt %collplan_src/plans/examples/templates/ring-allreduce.mlir --coll-instantiate=ranks=4 --coll-cost -o /dev/null | FileCheck %s --check-prefix=TEMPLATE
// RUN: coll-opt %collplan_src/plans/examples/templates/ring-allreduce.mlir --coll-instantiate=ranks=4 --coll-cost=annotate -o - | FileCheck %s --check-prefix=TANNOTATE

// The ring allreduce template for N = 4: 2(N-1) = 6 rounds, β = 2(N-1)/N = 1.5.
// TEMPLATE-LABEL: coll-cost @ring_allreduce: allreduce on 4 ranks, 4 chunks, op sum
// TEMPLATE-NEXT:  alpha rounds:     6
// TEMPLATE-NEXT:  beta coefficient: 1.5 (bytes on the critical path / M)
// TEMPLATE-NEXT:  transfers:        24 moving 6 M
// Each rank per RS step: the copy's write, the reduce's 2 reads and 1 write, the next
// copy's read (5 x 3 steps); per AG step: 1 write and 1 read (2 x 3 steps) = 21.
// TEMPLATE-NEXT:  memory touches:   84 units in all, per rank 21..21 (reads + writes)

// Fused reduce-then-send ring, N = 3: 2(N-1) = 4 rounds, β = 4/3.
// CHECK-LABEL: coll-cost @ring_allreduce_fused_3
// CHECK-NEXT:  alpha rounds:     4
// CHECK-NEXT:  beta coefficient: 1.33333

// Ring allgather, N = 4: N-1 = 3 rounds, β = (N-1)/N = 0.75.
// CHECK-LABEL: coll-cost @ring_allgather_4
// CHECK-NEXT:  alpha rounds:     3
// CHECK-NEXT:  beta coefficient: 0.75
// CHECK:       peak scratch:     0 units (0 M)

// Ring reduce-scatter, N = 3: N-1 = 2 rounds, β = 2/3.
// CHECK-LABEL: coll-cost @ring_reduce_scatter_3
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 0.666667

// Pairwise all-to-all, N = 3: N-1 = 2 rounds, β = (N-1)/N.
// CHECK-LABEL: coll-cost @direct_alltoall_3
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 0.666667

// Binomial reduce, N = 4: log2(N) = 2 rounds of M.
// CHECK-LABEL: coll-cost @binomial_reduce_4
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 2

// Flat gather and scatter, N = 3: the root's port serialises N-1 transfers of M/N.
// CHECK-LABEL: coll-cost @flat_gather_3
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 0.666667
// CHECK-LABEL: coll-cost @flat_scatter_3
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 0.666667

// Dissemination barrier, N = 3: ceil(log2 N) = 2 rounds, no payload.
// CHECK-LABEL: coll-cost @dissemination_barrier_3
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 0

// Two slices per chunk pipeline an allgather of N = 2: 2 rounds of M/4.
// CHECK-LABEL: coll-cost @sliced_allgather_2: allgather on 2 ranks, 2 chunks x 2 slices
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 0.5

// One-shot allreduce with remote reads: 1 round, each rank reads its peer's M.
// CHECK-LABEL: coll-cost @one_shot_remote_reads_2
// CHECK-NEXT:  alpha rounds:     1
// CHECK-NEXT:  beta coefficient: 1

// Binomial broadcast, N = 4: log2(N) = 2 rounds of M.
// CHECK-LABEL: coll-cost @binomial_broadcast_1chunk_4
// CHECK-NEXT:  alpha rounds:     2
// CHECK-NEXT:  beta coefficient: 2

// ANNOTATE-LABEL: coll.schedule @ring_allreduce_fused_3
// ANNOTATE-SAME: coll.cost = {alpha_rounds = 4 : i64, beta = 1.3333333333333333 : f64, bytes_moved = 4.000000e+00 : f64, memory_touches = 33 : i64, scratch_units = 1 : i64}
// TANNOTATE-LABEL: coll.schedule @ring_allreduce
// TANNOTATE-SAME: coll.cost = {alpha_rounds = 6 : i64, beta = 1.500000e+00 : f64, bytes_moved = 6.000000e+00 : f64, memory_touches = 84 : i64, scratch_units = 2 : i64}

// RANKS-LABEL: coll-cost @binomial_reduce_4
// RANKS:       rank 0: reads 3, writes 3, scratch 2
// RANKS-NEXT:  rank 1: reads 1, writes 0, scratch 0
