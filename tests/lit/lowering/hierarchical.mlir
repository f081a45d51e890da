// hierarchical: intra-node reduce-scatter, inter-node allreduce between the ranks of one local
// index, intra-node allgather; each stage is a registered algorithm (`intra`, default
// mesh-two-step; `inter`, default ring) lowered over its sub-group.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/ring.mlir --coll-lower="params='ranks-per-node=2'" --coll-verify | FileCheck %s --check-prefix=RING
// RUN: coll-opt %t/ring.mlir --coll-lower=topology=fattree:2x2x1 --coll-verify | FileCheck %s --check-prefix=RING
// RUN: coll-opt %t/rd.mlir --coll-lower="params='ranks-per-node=2 inter=recursive-doubling'" --coll-verify | FileCheck %s --check-prefix=RD
// RUN: coll-opt %t/ring.mlir --coll-lower="params='ranks-per-node=2'" --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST-RING
// RUN: coll-opt %t/rd.mlir --coll-lower="params='ranks-per-node=2 inter=recursive-doubling'" --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST-RD
// RUN: coll-opt %t/any.mlir --coll-lower="params='ranks-per-node=2 intra=ring inter=rabenseifner'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=ANY
// RUN: coll-opt %t/any.mlir --coll-lower="params='ranks-per-node=2 intra=ring inter=rabenseifner'" --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST-ANY
// RUN: coll-opt %t/any.mlir --coll-lower="params='ranks-per-node=4 inter=binomial-tree'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=TREE
// RUN: coll-opt %t/errors.mlir -split-input-file --coll-lower -verify-diagnostics
// RUN: coll-opt %t/not-dividing.mlir --coll-lower="params='ranks-per-node=3'" -verify-diagnostics
// RUN: coll-opt %t/unregistered.mlir --coll-lower="params='ranks-per-node=2 inter=tree'" -verify-diagnostics
// RUN: coll-opt %t/no-allreduce.mlir --coll-lower="params='ranks-per-node=2 inter=pairwise'" -verify-diagnostics
// RUN: coll-opt %t/no-scatter.mlir --coll-lower="params='ranks-per-node=2 intra=one-shot'" -verify-diagnostics
// RUN: coll-opt %t/unequal.mlir --coll-lower=topology=%t/unequal-nodes.json -verify-diagnostics

//--- ring.mlir
// Two nodes of two ranks (given, or from a 2-node fat tree). Share 0 belongs to local rank 0
// (ranks 0 and 2) and is cut into the inter-node ring's one chunk per node (chunks 0 and 1).
// RING-LABEL: coll.schedule @ar allreduce ranks 4 chunks 4 op sum algorithm "hierarchical"
// Intra-node reduce-scatter (mesh-two-step): rank 1 writes chunk 0 to rank 0, which folds in
// local order.
// RING: %[[X1:.*]] = coll.input rank 1 chunk 0
// RING: %[[C1:.*]] = coll.copy %[[X1]] to rank 0 {channel = 0 : i64, step = 0 : i64}
// RING: %[[X0:.*]] = coll.input rank 0 chunk 0
// RING: %[[P0:.*]] = coll.reduce %[[X0]], %[[C1]] at rank 0 {step = 1 : i64}
// RING: %[[P1:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 2 {step = 1 : i64}
// Inter-node ring between ranks 0 and 2 after it, then the intra-node allgather.
// RING: %[[M:.*]] = coll.copy %[[P1]] to rank 0 {step = 2 : i64}
// RING: %[[R:.*]] = coll.reduce %[[M]], %[[P0]] at rank 0
// RING: %[[G:.*]] = coll.copy %[[R]] to rank 2 {step = 3 : i64}
// RING: coll.copy %[[R]] to rank 1 {step = 4 : i64}
// RING: coll.output %[[R]] rank 0 chunk 0
// RING: coll.copy %[[G]] to rank 3 {step = 4 : i64}
coll.collective @ar allreduce ranks 4 op sum algorithm "hierarchical"

// Port model: 2(L-1) + 2(K-1) rounds (each peer's chunks travel as one message per step),
// β = 2(N-1)/N, the ring's.
// COST-RING-LABEL: coll-cost @ar: allreduce on 4 ranks, 4 chunks, op sum
// COST-RING-NEXT: alpha rounds:     4
// COST-RING-NEXT: beta coefficient: 1.5

//--- rd.mlir
// Three nodes of two: recursive doubling between the nodes, whose first node folds into the
// second before the exchange and gets the result back after it. Partners fold (lower, upper).
// RD-LABEL: coll.schedule @ar allreduce ranks 6 chunks 2 op sum algorithm "hierarchical"
// RD: %[[P0:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 0 {step = 1 : i64}
// RD: %[[P1:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 2 {step = 1 : i64}
// RD: %[[P2:.*]] = coll.reduce %{{[0-9]+}}, %{{[0-9]+}} at rank 4 {step = 1 : i64}
// RD: %[[F:.*]] = coll.copy %[[P0]] to rank 2 {step = 2 : i64}
// RD: %[[Q1:.*]] = coll.reduce %[[F]], %[[P1]] at rank 2 {step = 2 : i64}
// RD: %[[T2:.*]] = coll.copy %[[Q1]] to rank 4 {step = 3 : i64}
// RD: %[[T1:.*]] = coll.copy %[[P2]] to rank 2 {step = 3 : i64}
// RD: %[[R1:.*]] = coll.reduce %[[Q1]], %[[T1]] at rank 2 {step = 3 : i64}
// RD: %[[R2:.*]] = coll.reduce %[[T2]], %[[P2]] at rank 4 {step = 3 : i64}
// RD: coll.copy %[[R1]] to rank 0 {step = 4 : i64}
coll.collective @ar allreduce ranks 6 op sum algorithm "hierarchical"

// Port model (L = 2, K = 3, K' = 2): α = 2(L-1) + log2 K' + 2 (folding a node in and out) = 5,
// every message M/L: β = 5/2.
// COST-RD-LABEL: coll-cost @ar: allreduce on 6 ranks, 2 chunks, op sum
// COST-RD-NEXT: alpha rounds:     5
// COST-RD-NEXT: beta coefficient: 2.5

//--- any.mlir
// Any registered algorithm is a stage: a ring inside the nodes and Rabenseifner between four
// nodes (the inter-node stage once knew only ring and recursive doubling); share i is cut into
// Rabenseifner's four chunks.
// ANY-LABEL: coll.schedule @ar allreduce ranks 8 chunks 8 op sum algorithm "hierarchical"
// ANY: coll.reduce_send %{{[0-9]+}}, %{{[0-9]+}} at rank {{[0-9]+}} to rank {{[0-9]+}} {step = 2 : i64}
// COST-ANY-LABEL: coll-cost @ar: allreduce on 8 ranks, 8 chunks, op sum
// Intra ring 1 + Rabenseifner 2 log2 4 + intra ring 1; β = 1/2 + 2(3/4)/2 + 1/2.
// COST-ANY-NEXT: alpha rounds:     6
// COST-ANY-NEXT: beta coefficient: 1.75
// Two nodes of four with a binomial tree between them: one chunk per share.
// TREE-LABEL: coll.schedule @ar allreduce ranks 8 chunks 4 op sum algorithm "hierarchical"
coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

//--- errors.mlir
// expected-error @+1 {{ranks per node is 0 (take it from the topology) but no topology is given: set ranks-per-node or topology}}
coll.collective @nodes allreduce ranks 4 op sum algorithm "hierarchical"

// -----

// expected-error @+1 {{algorithm 'hierarchical' does not implement alltoall (it implements: allreduce, allgather, reduce_scatter)}}
coll.collective @a2a alltoall ranks 4 algorithm "hierarchical"

//--- not-dividing.mlir
// expected-error @+1 {{ranks per node 3 does not divide 8 ranks}}
coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

//--- unregistered.mlir
// expected-error @+1 {{parameter inter=tree: "tree" is not a registered algorithm (known: }}
coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

//--- no-allreduce.mlir
// expected-error @+1 {{inter-node algorithm 'pairwise' does not implement allreduce (it implements: alltoall)}}
coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

//--- no-scatter.mlir
// expected-error @+1 {{intra-node algorithm 'one-shot' does not implement reduce_scatter (it implements: allreduce)}}
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
