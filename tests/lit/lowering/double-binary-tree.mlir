// double-binary-tree: allreduce over two complementary binary trees, each carrying half of every
// chunk, pipelined in `pipeline` chunks.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/dbt.mlir --coll-lower="params='pipeline=1'" --coll-fuse-reduce-copy --coll-verify | FileCheck %s --check-prefix=DBT
// RUN: coll-opt %t/dbt.mlir --coll-lower --coll-fuse-reduce-copy --coll-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: coll-opt %t/pipeline0.mlir --coll-lower="params='pipeline=0'" -verify-diagnostics
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- dbt.mlir
// Two trees on 4 ranks: tree 0 (slice 0) is 0 -> 2 -> {1, 3}, tree 1 (slice 1) its mirror
// 3 -> 1 -> {0, 2}: the inner node of one is a leaf of the other.
// DBT-LABEL: coll.schedule @ar allreduce ranks 4 slices 2 op sum algorithm "double-binary-tree"
// DBT: coll.reduce_send %{{.*}}, %{{.*}}, %{{.*}} at rank 2 to rank 0 {channel = 0 : i64
// DBT: %[[R0:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 0 {channel = 0 : i64}
// DBT-NEXT: coll.output %[[R0]] rank 0 chunk 0 slice 0
// DBT: coll.reduce_send %{{.*}}, %{{.*}}, %{{.*}} at rank 1 to rank 3 {channel = 1 : i64
// DBT: %[[R1:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 3 {channel = 1 : i64}
// DBT-NEXT: coll.output %[[R1]] rank 3 chunk 0 slice 1
coll.collective @ar allreduce ranks 4 op sum algorithm "double-binary-tree"

// Each tree carries half of the message in 4 chunks (the default pipeline): every transfer is
// M/8, and every slice crosses every tree edge twice (reduce, then broadcast): 2(N-1) = 6 M.
// COST-LABEL: coll-cost @ar: allreduce on 4 ranks, 4 chunks x 2 slices, op sum
// COST: transfers: {{ *}}48 moving 6 M

//--- pipeline0.mlir
// expected-error @+1 {{parameter pipeline=0: "0" is below the minimum of 1}}
coll.collective @ar allreduce ranks 4 op sum algorithm "double-binary-tree"

//--- errors.mlir
// expected-error @+1 {{algorithm 'double-binary-tree' does not implement broadcast (it implements: allreduce)}}
coll.collective @bc broadcast ranks 4 algorithm "double-binary-tree"
