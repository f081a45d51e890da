// rdh: recursive halving / doubling across the dimensions of a hypercube or torus of devices
// (dims, or the topology's), with an intra-device stage first and last.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/dims.mlir --coll-lower="params='dims=2 ranks-per-device=2'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=DIMS
// RUN: coll-opt %t/topology.mlir --coll-lower="topology=torus:2x2x2" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=TOPO
// RUN: coll-opt %t/defaults.mlir --coll-lower --coll-fuse-reduce-copy --coll-verify --coll-cost 2>&1 | FileCheck %s --check-prefix=DEFAULTS
// RUN: coll-opt %t/bad-dims.mlir --coll-lower="params='dims=2,3 ranks-per-device=2'" -verify-diagnostics
// RUN: coll-opt %t/zero-dim.mlir --coll-lower="params='dims=4,0'" -verify-diagnostics
// RUN: coll-opt %t/bad-device.mlir --coll-lower="topology=torus:2x2x2 params='ranks-per-device=4'" -verify-diagnostics
// RUN: coll-opt %t/not-dividing.mlir --coll-lower="params='ranks-per-device=3'" -verify-diagnostics

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

//--- defaults.mlir
// One rank per device, one dimension over the devices: plain recursive halving then doubling,
// 2 log2 N rounds.
// DEFAULTS-LABEL: coll-cost @ar: allreduce on 4 ranks, 4 chunks, op sum
// DEFAULTS-NEXT: alpha rounds:     4
// DEFAULTS-NEXT: beta coefficient: 1.5
coll.collective @ar allreduce ranks 4 op sum algorithm "rdh"

//--- bad-dims.mlir
// expected-error @+1 {{dims [2, 3] give 6 devices, but 16 ranks / 2 ranks per device = 8 devices}}
coll.collective @ar allreduce ranks 16 op sum algorithm "rdh"

//--- zero-dim.mlir
// expected-error @+1 {{parameter dims=4,0: in "4,0": "0" is below the minimum of 1}}
coll.collective @ag allgather ranks 4 algorithm "rdh"

//--- bad-device.mlir
// expected-error @+1 {{ranks per device 4 disagrees with topology 'torus-2x2x2' (2 ranks per device)}}
coll.collective @ar allreduce ranks 8 op sum algorithm "rdh"

//--- not-dividing.mlir
// expected-error @+1 {{ranks per device 3 does not divide 16 ranks}}
coll.collective @rs reduce_scatter ranks 16 op sum algorithm "rdh"
