// coll-lower-hierarchical: intra-node reduce-scatter, inter-node allreduce, intra-node allgather.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/ring.mlir --coll-lower-hierarchical=ranks-per-node=2 --coll-verify | FileCheck %s --check-prefix=RING
// RUN: coll-opt %t/ring.mlir --coll-lower-hierarchical=topology=fattree:2x2x1 --coll-verify | FileCheck %s --check-prefix=RING
// RUN: coll-opt %t/rd.mlir --coll-lower-hierarchical="ranks-per-node=2 inter=recursive-doubling" --coll-verify | FileCheck %s --check-prefix=RD
// RUN: coll-opt %t/ring.mlir --coll-lower-hierarchical=ranks-per-node=2 --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST-RING
// RUN: coll-opt %t/rd.mlir --coll-lower-hierarchical="ranks-per-node=2 inter=recursive-doubling" --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST-RD
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower-hierarchical -verify-diagnostics
// RUN: coll-opt %t/not-dividing.mlir --coll-lower-hierarchical=ranks-per-node=3 -verify-diagnostics
// RUN: coll-opt %t/bad-inter.mlir --coll-lower-hierarchical="ranks-per-node=2 inter=tree" -verify-diagnostics
// RUN: coll-opt %t/unequal.mlir --coll-lower-hierarchical=topology=%t/unequal-nodes.json -verify-diagnostics

//--- ring.mlir
// Two nodes of two ranks (given, or from a 2-node fat tree). Share 0 belongs to local rank 0
// (ranks 0 and 2) and is cut into one chunk per node for the inter-node ring.
// RING-LABEL: coll.schedule @ar allreduce ranks 4 chunks 4 op sum algorithm "hierarchical"
// Intra-node reduce-scatter: rank 1 writes chunk 0 to rank 0, which folds in local order.
// RING: %[[X0:.*]] = coll.input rank 0 chunk 0
// RING: %[[X1:.*]] = coll.input rank 1 chunk 0
// RING: %[[C1:.*]] = coll.copy %[[X1]] to rank 0 {step = 0 : i64}
// RING: %[[P0:.*]] = coll.reduce %[[X0]], %[[C1]] at rank 0 {step = 0 : i64}
// RING: %[[P1:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 2 {step = 0 : i64}
// Inter-node ring between ranks 0 and 2, then the intra-node allgather.
// RING: %[[M:.*]] = coll.copy %[[P1]] to rank 0 {step = 1 : i64}
// RING: %[[R:.*]] = coll.reduce %[[M]], %[[P0]] at rank 0 {step = 1 : i64}
// RING: %[[G:.*]] = coll.copy %[[R]] to rank 2 {step = 2 : i64}
// RING: coll.copy %[[R]] to rank 1 {step = 3 : i64}
// RING: coll.copy %[[G]] to rank 3 {step = 3 : i64}
coll.collective @ar allreduce ranks 4 op sum algorithm "hierarchical"

// Port model: α = 2(L-1)K + 2(K-1) (each of the K chunks of a share is its own message inside
// a node), β = 2(N-1)/N.
// COST-RING-LABEL: coll-cost @ar: allreduce on 4 ranks, 4 chunks, op sum
// 2(L-1) + 2(K-1) rounds: each peer's chunks travel as one message per step.
// COST-RING-NEXT: alpha rounds:     4
// COST-RING-NEXT: beta coefficient: 1.5

//--- rd.mlir
// Three nodes of two: recursive doubling over the largest power of two (nodes 0, 1); node 2
// folds into node 0 first and gets the result back last. Partners fold (lower, upper).
// RD-LABEL: coll.schedule @ar allreduce ranks 6 chunks 2 op sum algorithm "hierarchical"
// RD: %[[P0:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 0 {step = 0 : i64}
// RD: %[[P1:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 2 {step = 0 : i64}
// RD: %[[P2:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 4 {step = 0 : i64}
// RD: %[[F:.*]] = coll.copy %[[P2]] to rank 0 {step = 1 : i64}
// RD: %[[Q0:.*]] = coll.reduce %[[P0]], %[[F]] at rank 0 {step = 1 : i64}
// RD: %[[T0:.*]] = coll.copy %[[P1]] to rank 0 {step = 2 : i64}
// RD: %[[R0:.*]] = coll.reduce %[[Q0]], %[[T0]] at rank 0 {step = 2 : i64}
// RD: %[[T1:.*]] = coll.copy %[[Q0]] to rank 2 {step = 2 : i64}
// RD: %[[R1:.*]] = coll.reduce %[[T1]], %[[P1]] at rank 2 {step = 2 : i64}
// RD: coll.copy %[[R0]] to rank 4 {step = 3 : i64}
coll.collective @ar allreduce ranks 6 op sum algorithm "hierarchical"

// Port model (L = 2, K = 3, K' = 2): α = 2(L-1) + log2 K' + 2 (folding node 2 in and out) = 5,
// every message M/L: β = 5/2.
// COST-RD-LABEL: coll-cost @ar: allreduce on 6 ranks, 2 chunks, op sum
// COST-RD-NEXT: alpha rounds:     5
// COST-RD-NEXT: beta coefficient: 2.5

//--- errors.mlir
// expected-error @+1 {{ranks per node is 0 (take it from the topology) but no topology is given: set ranks-per-node or topology}}
coll.collective @nodes allreduce ranks 4 op sum algorithm "hierarchical"

// -----

// expected-error @+1 {{algorithm 'hierarchical' does not implement allgather (it implements: allreduce)}}
coll.collective @ag allgather ranks 4 algorithm "hierarchical"

//--- not-dividing.mlir
// expected-error @+1 {{ranks per node 3 does not divide 8 ranks}}
coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

//--- bad-inter.mlir
// expected-error @+1 {{inter-node algorithm 'tree' is not one of: ring, recursive-doubling}}
coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

//--- unequal.mlir
// expected-error @+1 {{hierarchical allreduce needs the same number of ranks on every node: topology 'unequal-nodes' has nodes of 3 and 1 ranks}}
coll.collective @ar allreduce ranks 4 op sum algorithm "hierarchical"

//--- unequal-nodes.json
{
  "format_version": 1,
  "name": "unequal-nodes",
  "ranks": 4,
  "devices": [
    {"name": "g0", "kind": "gpu", "ranks": [0, 1], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "g1", "kind": "gpu", "ranks": [2], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "g2", "kind": "gpu", "ranks": [3], "node": 1, "mem_bandwidth_gbps": 1000}
  ],
  "links": [
    {"a": "g0", "b": "g1", "bandwidth_gbps": 100, "latency_us": 1.0},
    {"a": "g1", "b": "g2", "bandwidth_gbps": 100, "latency_us": 1.0}
  ],
  "routing": "shortest_path",
  "intra_device": {"bandwidth_gbps": 500, "latency_us": 0.1}
}
