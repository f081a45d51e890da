// coll-lower lowers every coll.collective by its own algorithm, through the registry; each
// algorithm has a file of its own here (<algorithm>.mlir), this one the pass's options.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/mixed.mlir --coll-lower --coll-fuse-reduce-copy | FileCheck %s
// RUN: coll-opt %t/mixed.mlir --coll-lower="params='channels=2'" --coll-fuse-reduce-copy | FileCheck %s --check-prefix=CHANNELS
// RUN: coll-opt %t/mixed.mlir --coll-lower="params=\"channels=2 bidirectional=false\"" --coll-fuse-reduce-copy | FileCheck %s --check-prefix=CHANNELS
// RUN: coll-opt %t/unnamed.mlir --coll-lower=algorithm=binomial-tree --coll-fuse-reduce-copy | FileCheck %s --check-prefix=UNNAMED
// RUN: coll-opt %t/unnamed.mlir --coll-compile=algorithm=binomial-tree | FileCheck %s --check-prefix=PIPELINE
// RUN: coll-opt %t/mixed.mlir --coll-lower=algorithm=flat --coll-fuse-reduce-copy | FileCheck %s
// RUN: coll-opt %t/mixed.mlir --coll-lower="explain=true" --coll-fuse-reduce-copy -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

//--- mixed.mlir
// CHECK-LABEL: coll.schedule @ring4 allreduce ranks 4 chunks 4 op sum algorithm "ring"
// CHECK:         coll.reduce_send
// CHECK-LABEL: coll.schedule @tree4 broadcast ranks 4 root 1 algorithm "binomial-tree"
// CHECK:         coll.copy
// A parameter reaches the collectives whose algorithm declares it (ring: two rings, one
// channel each); the others keep their defaults.
// CHANNELS-LABEL: coll.schedule @ring4
// CHANNELS: {channel = 1 : i64
// CHANNELS-LABEL: coll.schedule @tree4 broadcast ranks 4 root 1 algorithm "binomial-tree"
// CHANNELS-NOT: channel
// EXPLAIN: remark: lower: @ring4: allreduce on 4 ranks, 4 chunks, op sum, a schedule of
// EXPLAIN: remark: lower: @tree4: broadcast on 4 ranks, 1 chunk, root 1, a schedule of
coll.collective @ring4 allreduce ranks 4 op sum algorithm "ring"
coll.collective @tree4 broadcast ranks 4 root 1 algorithm "binomial-tree"

//--- unnamed.mlir
// `algorithm` names the algorithm of collectives that name none; those that name one keep it.
// UNNAMED-LABEL: coll.schedule @bc broadcast ranks 4 root 1 algorithm "binomial-tree"
// UNNAMED-LABEL: coll.schedule @ag allgather ranks 4 algorithm "ring"
// The compile pipeline passes its `algorithm` to its coll-lower.
// PIPELINE-LABEL: coll.program @bc broadcast ranks 4 root 1 algorithm "binomial-tree"
// PIPELINE-LABEL: coll.program @ag allgather ranks 4 algorithm "ring"
coll.collective @bc broadcast ranks 4 root 1
coll.collective @ag allgather ranks 4 algorithm "ring"
