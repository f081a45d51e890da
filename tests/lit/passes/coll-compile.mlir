// coll-compile: the pipeline every tool runs (lower, slice, steps, to-program, hoist-sends,
// coalesce, allocate-scratch, export), from a collective to a program the runtime loads.
// RUN: coll-opt %s --coll-compile | FileCheck %s
// RUN: coll-opt %s --coll-compile="params='bidirectional=true' slices=2" | FileCheck %s --check-prefix=BIDIR
// RUN: coll-opt %s --coll-compile="explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: not coll-opt %s --coll-compile="topology=no-such-topology" 2>&1 | FileCheck %s --check-prefix=TOPO

// Every rank of the 5-rank ring sends its own block before it forwards anything.
// CHECK-LABEL: coll.program @ag5 allgather ranks 5 algorithm "ring" units 5 scratch 0
// CHECK:      coll.rank 3 {
// CHECK-NEXT:   coll.send in[0:1] -> send 4
// CHECK-NEXT:   coll.local_copy in[0:1] -> out[3:4]
// CHECK-NEXT:   coll.recv_copy_send recv 2
// A bidirectional ring puts each direction on a channel of its own.
// BIDIR: coll.send {{.*}} {channel = 1 : i64
// EXPLAIN: remark: lower: @ag5: allgather on 5 ranks, 5 chunks, a schedule of
// EXPLAIN: remark: verify: every output holds exactly its contributions
// EXPLAIN: remark: hoist:
// EXPLAIN: remark: coalesce: 0 transfers joined
// EXPLAIN: remark: scratch: none
// EXPLAIN: remark: program: 30 instructions over 5 ranks
// EXPLAIN: remark: check: transfers matched in order per sender, receiver and channel
// TOPO: error: topology 'no-such-topology':
coll.collective @ag5 allgather ranks 5 algorithm "ring"
