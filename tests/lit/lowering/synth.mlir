// synth: trees grown on the topology's links, packed so that together they load each link by
// its bandwidth, each message given its step by a list schedule of the links (`own_steps`). On a
// ring of 4 with one tree per block, block 0 reaches ranks 3 and 1 over their links and rank 2
// through rank 3 (each tree has been regrown on the loads of the others); every block's first
// hops (steps 0-7) come before any relayed one (8-11). Reduce-scatter folds the same way up:
// rank 2's operand joins rank 3's, on the channel of the message it then feeds, and rank 0
// folds its own, rank 1's and rank 3's on the roots' fold channel 0. Without a topology the
// trees are grown on a switch, where every tree is a star.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/allgather.mlir --coll-lower="params='trees=1' topology=ring:4" --coll-verify | FileCheck %s --check-prefix=AG
// RUN: coll-opt %t/reduce-scatter.mlir --coll-lower="params='trees=1' topology=ring:4" --coll-verify | FileCheck %s --check-prefix=RS
// RUN: coll-opt %t/allgather.mlir --coll-lower="params='trees=1'" --coll-verify | FileCheck %s --check-prefix=STAR
// RUN: coll-opt %t/latency.mlir --coll-lower="params='latency=true' topology=ring:5" --coll-verify | FileCheck %s --check-prefix=LATENCY
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- allgather.mlir
// AG-LABEL: coll.schedule @ag allgather ranks 4 algorithm "synth" own_steps
// AG: %[[B0:.*]] = coll.input rank 0 chunk 0
// AG-NEXT: %[[TO3:.*]] = coll.copy %[[B0]] to rank 3 {channel = {{[0-9]+}} : i64, step = 1 : i64}
// AG-NEXT: %[[TO1:.*]] = coll.copy %[[B0]] to rank 1 {channel = {{[0-9]+}} : i64, step = 0 : i64}
// AG-NEXT: %[[TO2:.*]] = coll.copy %[[TO3]] to rank 2 {channel = {{[0-9]+}} : i64, step = 8 : i64}
// AG: coll.output %[[TO2]] rank 2 chunk 0
// STAR-LABEL: coll.schedule @ag allgather ranks 4 algorithm "synth" own_steps
// STAR: %[[B0:.*]] = coll.input rank 0 chunk 0
// STAR-NEXT: coll.copy %[[B0]] to rank 1
// STAR-NEXT: coll.copy %[[B0]] to rank 2
// STAR-NEXT: coll.copy %[[B0]] to rank 3
coll.collective @ag allgather ranks 4 algorithm "synth"

//--- latency.mlir
// A ring of 5 with latency=true: every block goes straight to every rank along its route (a
// relay would add an op's hand-off to links the message crosses anyway).
// LATENCY-LABEL: coll.schedule @ag5 allgather ranks 5 algorithm "synth" own_steps
// LATENCY: %[[B0:.*]] = coll.input rank 0 chunk 0
// LATENCY-DAG: coll.copy %[[B0]] to rank 1 {channel
// LATENCY-DAG: coll.copy %[[B0]] to rank 2 {channel
// LATENCY-DAG: coll.copy %[[B0]] to rank 3 {channel
// LATENCY-DAG: coll.copy %[[B0]] to rank 4 {channel
// LATENCY: coll.input rank 1 chunk 0
coll.collective @ag5 allgather ranks 5 algorithm "synth"

//--- reduce-scatter.mlir
// RS-LABEL: coll.schedule @rs reduce_scatter ranks 4 op sum algorithm "synth" own_steps
// RS: %[[X2:.*]] = coll.input rank 2 chunk 0
// RS-NEXT: %[[P2:.*]] = coll.copy %[[X2]] to rank 3 {channel = {{[0-9]+}} : i64, step = 0 : i64}
// RS-NEXT: %[[X1:.*]] = coll.input rank 1 chunk 0
// RS-NEXT: %[[P1:.*]] = coll.copy %[[X1]] to rank 0 {channel = {{[0-9]+}} : i64, step = 4 : i64}
// RS-NEXT: %[[X3:.*]] = coll.input rank 3 chunk 0
// RS-NEXT: %[[S3:.*]] = coll.reduce %[[X3]], %[[P2]] at rank 3 {channel = [[C:[0-9]+]] : i64}
// RS-NEXT: %[[P3:.*]] = coll.copy %[[S3]] to rank 0 {channel = [[C]] : i64, step = 5 : i64}
// RS-NEXT: %[[X0:.*]] = coll.input rank 0 chunk 0
// RS-NEXT: %[[S0:.*]] = coll.reduce %[[X0]], %[[P1]], %[[P3]] at rank 0 {channel = 0 : i64}
// RS-NEXT: coll.output %[[S0]] rank 0 chunk 0
coll.collective @rs reduce_scatter ranks 4 op sum algorithm "synth"

//--- errors.mlir
// expected-error @+1 {{algorithm 'synth' does not implement alltoall (it implements: allgather, reduce_scatter, allreduce, broadcast)}}
coll.collective @a2a alltoall ranks 4 algorithm "synth"
