// mesh-two-step: direct writes to the same-index rank of every peer device, then an exchange
// inside each device (allreduce = reduce-scatter + allgather).
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/devices.mlir --coll-lower="params='ranks-per-device=2'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s
// RUN: coll-opt %t/devices.mlir --coll-lower="params='ranks-per-device=2'" --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/flat.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=FLAT
// RUN: coll-opt %t/topology.mlir --coll-lower=topology=torus:2x2x2 --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=TOPO
// RUN: coll-opt %t/errors.mlir --coll-lower="params='ranks-per-device=4'" -verify-diagnostics
// RUN: coll-opt %t/unequal.mlir --coll-lower=topology=%t/unequal-chips.json -verify-diagnostics

//--- devices.mlir
// Six ranks on three devices of two: rank (e, i) is rank 2e + i.
// Step 0 writes chunk 0 of the same-index ranks of the other devices to rank 1, which folds
// them in device order and writes the partial to rank 0 (step 1); rank 0 folds its own
// device's partials in local order. Each ring shift of the writes has a channel of its own.
// CHECK-LABEL: coll.schedule @rs reduce_scatter ranks 6 op sum algorithm "mesh-two-step"
// CHECK: %[[A:.*]] = coll.copy %{{[0-9#]+}} to rank 1 {channel = 0 : i64, step = 0 : i64}
// CHECK: %[[B:.*]] = coll.copy %{{[0-9#]+}} to rank 1 {channel = 1 : i64, step = 0 : i64}
// CHECK: %[[OWN1:.*]] = coll.input rank 1 chunk 0
// CHECK: %[[P1:.*]] = coll.reduce_send %[[OWN1]], %[[A]], %[[B]] at rank 1 to rank 0 {step = 1 : i64}
// CHECK: %[[P0:.*]] = coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 {step = 1 : i64}
// CHECK: %[[R:.*]] = coll.reduce %[[P0]], %[[P1]] at rank 0 {step = 1 : i64}
// CHECK: coll.output %[[R]] rank 0 chunk 0
coll.collective @rs reduce_scatter ranks 6 op sum algorithm "mesh-two-step"

// Step 0 duplicates a block to the same-index rank of every other device, step 1 inside each
// device.
// CHECK-LABEL: coll.schedule @ag allgather ranks 6 algorithm "mesh-two-step"
// CHECK: %[[X:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[D:.*]]:2 = coll.dup %[[X]] to ranks [2, 4] {step = 0 : i64}
// CHECK: coll.copy %[[X]] to rank 1 {step = 1 : i64}
// CHECK: coll.copy %[[D]]#0 to rank 3 {step = 1 : i64}
// CHECK: coll.copy %[[D]]#1 to rank 5 {step = 1 : i64}
coll.collective @ag allgather ranks 6 algorithm "mesh-two-step"

// Allreduce: the reduce-scatter (steps 0-1) then the allgather (steps 2-3) of chunk r from r.
// CHECK-LABEL: coll.schedule @ar allreduce ranks 6 chunks 6 op sum algorithm "mesh-two-step"
// CHECK: %[[R:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 0 {step = 1 : i64}
// CHECK: coll.dup %[[R]] to ranks [2, 4] {step = 2 : i64}
// CHECK: coll.copy %[[R]] to rank 1 {step = 3 : i64}
coll.collective @ar allreduce ranks 6 op sum algorithm "mesh-two-step"

// Port model, N = 6, 3 devices of 2 ranks, messages of M/N: two-step reduce-scatter
// (D-1) + (R-1) = 3 rounds (a peer device's chunks are adjacent: one message); allgather N-1 = 5
// (the blocks a rank passes to its device peer lie R apart: one message each); allreduce both.
// COST-LABEL: coll-cost @rs: reduce_scatter on 6 ranks, 6 chunks, op sum
// COST-NEXT: alpha rounds:     3
// COST-NEXT: beta coefficient: 0.833333
// COST-LABEL: coll-cost @ag: allgather on 6 ranks, 6 chunks
// COST-NEXT: alpha rounds:     5
// COST-NEXT: beta coefficient: 0.833333
// COST-LABEL: coll-cost @ar: allreduce on 6 ranks, 6 chunks, op sum
// COST-NEXT: alpha rounds:     8
// COST-NEXT: beta coefficient: 1.66667

//--- flat.mlir
// One rank per device (the default): step 0 alone is a direct reduce-scatter / allgather.
// FLAT-LABEL: coll.schedule @ar allreduce ranks 3 chunks 3 op sum algorithm "mesh-two-step"
// FLAT: %[[R:.*]] = coll.reduce %{{[0-9#]+}}, %{{[0-9#]+}}, %{{[0-9#]+}} at rank 0 {step = 1 : i64}
// FLAT: coll.dup %[[R]] to ranks [1, 2] {step = 2 : i64}
coll.collective @ar allreduce ranks 3 op sum algorithm "mesh-two-step"

//--- topology.mlir
// Devices from the topology: four chips of two ranks.
// TOPO-LABEL: coll.schedule @ag allgather ranks 8 algorithm "mesh-two-step"
// TOPO: coll.dup %{{[0-9#]+}} to ranks [2, 4, 6] {step = 0 : i64}
coll.collective @ag allgather ranks 8 algorithm "mesh-two-step"

//--- errors.mlir
// expected-error @+1 {{ranks per device 4 does not divide 6 ranks}}
coll.collective @six allreduce ranks 6 op sum algorithm "mesh-two-step"

//--- unequal.mlir
// expected-error @+1 {{mesh-two-step needs the same number of ranks on every device: device 'c1' of topology 'unequal-chips' has 1, device 'c0' has 3}}
coll.collective @ar allreduce ranks 4 op sum algorithm "mesh-two-step"

//--- unequal-chips.json
{
  "format_version": 1,
  "name": "unequal-chips",
  "ranks": 4,
  "devices": [
    {"name": "c0", "kind": "chip", "ranks": [0, 1, 2], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "c1", "kind": "chip", "ranks": [3], "node": 0, "mem_bandwidth_gbps": 1000}
  ],
  "links": [{"a": "c0", "b": "c1", "bandwidth_gbps": 100, "latency_us": 1.0}],
  "routing": "shortest_path",
  "intra_device": {"bandwidth_gbps": 500, "latency_us": 0.1}
}
