// coll-hoist-sends orders each rank's program so that sends that need nothing received go
// before the receives: the placed 3-rank ring allgather below receives before it sends on rank 1
// and 2 (a chain); after the pass every rank sends its own block first, then copies it into its
// output (nothing reads that copy, so it waits behind the send).
// RUN: coll-opt %s --coll-hoist-sends | FileCheck %s
// RUN: coll-opt %s --coll-hoist-sends=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: coll.program @ag3
// CHECK:      coll.rank 1 {
// CHECK-NEXT:   coll.send in[0:1] -> send 2 id 1
// CHECK-NEXT:   coll.local_copy in[0:1] -> out[1:2]
// CHECK-NEXT:   coll.recv_copy_send recv 0 id 0 -> out[0:1], send 2 id 3
// CHECK-NEXT:   coll.recv recv 0 id 5 -> out[2:3]
// CHECK:      coll.rank 2 {
// CHECK-NEXT:   coll.send in[0:1] -> send 0 id 2
// CHECK-NEXT:   coll.local_copy in[0:1] -> out[2:3]
// EXPLAIN: remark: hoist: 9 instructions moved; every channel in the port model's rounds, sends first within a round
coll.program @ag3 allgather ranks 3 units 3 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[0:1] -> send 1 id 0
    coll.recv_copy_send recv 2 id 2 -> out[2:3], send 1 id 5
    coll.recv recv 2 id 4 -> out[1:2]
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[1:2]
    coll.recv_copy_send recv 0 id 0 -> out[0:1], send 2 id 3
    coll.send in[0:1] -> send 2 id 1
    coll.recv recv 0 id 5 -> out[2:3]
  }
  coll.rank 2 {
    coll.local_copy in[0:1] -> out[2:3]
    coll.recv_copy_send recv 1 id 1 -> out[1:2], send 0 id 4
    coll.recv recv 1 id 3 -> out[0:1]
    coll.send in[0:1] -> send 0 id 2
  }
}

// Steps that put each rank's receive before its send (an exchange) cannot run in that order: both
// ranks would wait. The pass falls back to the list schedule, which sends first.
// CHECK-LABEL: coll.program @exchange
// CHECK:      coll.rank 0 {
// CHECK-NEXT:   coll.send in[0:1] -> send 1 id 0
// CHECK-NEXT:   coll.recv recv 1 id 1 -> out[1:2]
// CHECK:      coll.rank 1 {
// CHECK-NEXT:   coll.send in[0:1] -> send 0 id 1
// CHECK-NEXT:   coll.recv recv 0 id 0 -> out[0:1]
// EXPLAIN: remark: hoist: 4 instructions moved; sends as early as they are ready (the steps give no order that finishes), 2 rounds
coll.program @exchange allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.recv recv 1 id 1 -> out[1:2] {step = 1 : i64}
    coll.send in[0:1] -> send 1 id 0 {step = 2 : i64}
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1] {step = 1 : i64}
    coll.send in[0:1] -> send 0 id 1 {step = 2 : i64}
  }
}
