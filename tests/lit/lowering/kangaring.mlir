// kangaring: rings over device primaries with 1R2W duplication and 3R1W reductions.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/order.mlir --coll-lower="params='order=2,3,0,1'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=ORDER
// RUN: coll-opt %t/order.mlir --coll-lower="params='order=1,0'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=ORDER
// RUN: coll-opt %t/topology.mlir --coll-lower="topology=torus:2x2x2" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=TOPO
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower -verify-diagnostics
// RUN: coll-opt %t/odd.mlir --coll-lower="params='ranks-per-device=3'" -verify-diagnostics
// RUN: coll-opt %t/bad-order.mlir --coll-lower="params='order=0,1,1,3'" -verify-diagnostics
// RUN: coll-opt %t/odd-topology.mlir --coll-lower=topology=%t/odd-chips.json -verify-diagnostics
// Every entry point takes ranks-per-device from the spec (2): plan-compile lowers the same pairs
// as coll-lower (the family pass once defaulted to 2 and the generic one to 1).
// RUN: plan-compile -c allgather -n 6 -a kangaring --emit mlir | FileCheck %s --check-prefix=SAME
// RUN: coll-opt %t/lower.mlir --coll-compile | FileCheck %s --check-prefix=COMPILED

//--- lower.mlir
// Six ranks on three devices of two: lane 0 (slice 0) pairs (0,1) (2,3) (4,5) with primaries
// 0, 2, 4; lane 1 (slice 1) runs the other way with primaries 5, 3, 1.

// CHECK-LABEL: coll.schedule @ag allgather ranks 6 slices 2 algorithm "kangaring" remote_reads
// SAME-LABEL: coll.schedule @allgather_kangaring allgather ranks 6 slices 2 algorithm "kangaring" remote_reads
// SAME: coll.dup %{{.*}} to ranks [1, 2] {channel = 0 : i64
// COMPILED-LABEL: coll.program @ag allgather ranks 6 slices 2 algorithm "kangaring"
// The primary's block goes to its secondary and downstream in one 1R2W write.
// CHECK: %[[X:.*]] = coll.input rank 0 chunk 0 slice 0
// CHECK: %[[D:.*]]:2 = coll.dup %[[X]] to ranks [1, 2] {channel = 0 : i64, step = 0 : i64}
// CHECK: coll.dup %[[D]]#1 to ranks [3, 4] {channel = 0 : i64, step = 1 : i64}
// The last primary only feeds its secondary.
// CHECK: coll.copy %{{[0-9#]+}} to rank 5 {channel = 0 : i64, step = 2 : i64}
// The secondary's block is first written to its primary, which forwards it.
// CHECK: %[[S:.*]] = coll.input rank 1 chunk 0 slice 0
// CHECK: %[[P:.*]] = coll.copy %[[S]] to rank 0 {channel = 0 : i64, step = 0 : i64}
// CHECK: coll.copy %[[P]] to rank 2 {channel = 0 : i64, step = 1 : i64}
// Lane 1: rank 5 is a primary, sending to its secondary 4 and downstream primary 3.
// CHECK: coll.input rank 5 chunk 0 slice 1
// CHECK: coll.dup %{{[0-9#]+}} to ranks [4, 3] {channel = 1 : i64, step = 0 : i64}
coll.collective @ag allgather ranks 6 algorithm "kangaring"

// CHECK-LABEL: coll.schedule @rs reduce_scatter ranks 6 slices 2 op sum algorithm "kangaring" remote_reads
// Chunk 0 (for rank 0) starts at pair (2,3) and ends at pair (0,1).
// CHECK: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}} at rank 2 to rank 4 {channel = 0 : i64, step = 0 : i64}
// 3R1W: received partial, own chunk and the secondary's chunk, read in place.
// CHECK: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 4 to rank 0 {channel = 0 : i64, step = 1 : i64}
// CHECK: coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 {channel = 0 : i64, step = 2 : i64}
// CHECK-NEXT: coll.output %{{[0-9#]+}} rank 0 chunk 0 slice 0
// The secondary's chunk: its primary folds the last three operands and writes them to it.
// CHECK: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 to rank 1 {channel = 0 : i64, step = 2 : i64}
// CHECK-NEXT: coll.output %{{[0-9#]+}} rank 1 chunk 0 slice 0
coll.collective @rs reduce_scatter ranks 6 op sum algorithm "kangaring"

// Allreduce: one chunk per pair, reduced at its primary (3R1W), then circulated with dups.
// CHECK-LABEL: coll.schedule @ar allreduce ranks 6 chunks 3 slices 2 op sum algorithm "kangaring" remote_reads
// CHECK: %[[R:.*]] = coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 {channel = 0 : i64, step = 2 : i64}
// CHECK: coll.output %[[R]] rank 0 chunk 0 slice 0
// CHECK: coll.dup %[[R]] to ranks [1, 2] {channel = 0 : i64, step = 3 : i64}
coll.collective @ar allreduce ranks 6 op sum algorithm "kangaring"

// Port model, N = 6: allgather 2(N-1) rounds of M/2N; allreduce the ring's 2(N-1)/N.
// COST-LABEL: coll-cost @ag: allgather on 6 ranks, 6 chunks x 2 slices
// COST-NEXT: alpha rounds:     10
// COST-NEXT: beta coefficient: 0.833333
// COST-LABEL: coll-cost @rs: reduce_scatter on 6 ranks, 6 chunks x 2 slices, op sum
// COST-NEXT: alpha rounds:     6
// COST-NEXT: beta coefficient: 0.916667
// COST-LABEL: coll-cost @ar: allreduce on 6 ranks, 3 chunks x 2 slices, op sum
// COST-NEXT: alpha rounds:     10
// COST-NEXT: beta coefficient: 1.66667

//--- order.mlir
// A rank order (2,3,0,1) or a device order (1,0) sets the device order: device 1 comes first.
// ORDER-LABEL: coll.schedule @ar allreduce ranks 4 chunks 2 slices 2
// ORDER: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 to rank 2 {channel = 0 : i64, step = 0 : i64}
// ORDER: %[[R:.*]] = coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 2
// ORDER: coll.dup %[[R]] to ranks [3, 0]
coll.collective @ar allreduce ranks 4 op sum algorithm "kangaring"

//--- topology.mlir
// A 2x2 torus of two-rank chips: the ring follows the torus cycle, chips 0, 1, 3, 2.
// TOPO-LABEL: coll.schedule @rs reduce_scatter ranks 8 slices 2 op sum algorithm "kangaring" remote_reads
// TOPO: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}} at rank 2 to rank 6
// TOPO: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 6 to rank 4
// TOPO: coll.reduce_send %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 4 to rank 0
// TOPO: coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0
coll.collective @rs reduce_scatter ranks 8 op sum algorithm "kangaring"

//--- errors.mlir
// expected-error @+1 {{ranks per device 2 does not divide 5 ranks}}
coll.collective @five allreduce ranks 5 op sum algorithm "kangaring"

// -----

// expected-error @+1 {{algorithm 'kangaring' does not implement alltoall (it implements: allgather, reduce_scatter, allreduce)}}
coll.collective @a2a alltoall ranks 4 algorithm "kangaring"

//--- odd.mlir
// expected-error @+1 {{KangaRing pairs the ranks of a device into primary and secondary, so it needs an even number of ranks per device (got 3)}}
coll.collective @odd allgather ranks 6 algorithm "kangaring"

//--- bad-order.mlir
// expected-error @+1 {{ring order [0, 1, 1, 3] is not a permutation of 0..3}}
coll.collective @order allgather ranks 4 algorithm "kangaring"

//--- odd-topology.mlir
// expected-error @+1 {{device 'c0' of topology 'odd-chips': KangaRing pairs the ranks of a device into primary and secondary, so it needs an even number of ranks per device (got 3)}}
coll.collective @odd reduce_scatter ranks 4 op sum algorithm "kangaring"

//--- odd-chips.json
{
  "format_version": 1,
  "name": "odd-chips",
  "ranks": 4,
  "devices": [
    {"name": "c0", "kind": "chip", "ranks": [0, 1, 2], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "c1", "kind": "chip", "ranks": [3], "node": 0, "mem_bandwidth_gbps": 1000}
  ],
  "links": [{"a": "c0", "b": "c1", "bandwidth_gbps": 100, "latency_us": 1.0}],
  "routing": "shortest_path",
  "intra_device": {"bandwidth_gbps": 500, "latency_us": 0.1}
}
