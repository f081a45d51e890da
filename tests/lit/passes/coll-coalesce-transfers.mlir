// coll-coalesce-transfers joins the transfers one rank sends another in one round when both
// ends hold the pieces side by side: each rank's two units go as one message of two units.
// RUN: coll-opt %s --coll-coalesce-transfers | FileCheck %s
// RUN: coll-opt %s --coll-coalesce-transfers=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: coll.program @p
// CHECK:      coll.rank 0 {
// CHECK:        coll.send in[0:2] -> send 1 id 0
// CHECK-NOT:    coll.send
// CHECK:        coll.recv recv 1 id 2 -> out[2:4]
// CHECK-NOT:    coll.recv
// CHECK:      coll.rank 1 {
// CHECK:        coll.send in[0:2] -> send 0 id 2
// CHECK:        coll.recv recv 0 id 0 -> out[0:2]
// EXPLAIN: remark: coalesce: 2 transfers joined to another one of the same round, peers and channel
coll.program @p allgather ranks 2 units 4 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.local_copy in[1:2] -> out[1:2]
    coll.send in[0:1] -> send 1 id 0 {step = 1}
    coll.send in[1:2] -> send 1 id 1 {step = 1}
    coll.recv recv 1 id 2 -> out[2:3] {step = 1}
    coll.recv recv 1 id 3 -> out[3:4] {step = 1}
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[2:3]
    coll.local_copy in[1:2] -> out[3:4]
    coll.send in[0:1] -> send 0 id 2 {step = 1}
    coll.send in[1:2] -> send 0 id 3 {step = 1}
    coll.recv recv 0 id 0 -> out[0:1] {step = 1}
    coll.recv recv 0 id 1 -> out[1:2] {step = 1}
  }
}

// Transfers on different channels stay apart: each channel's messages are matched on their own.
// CHECK-LABEL: coll.program @channels
// CHECK:        coll.send in[0:1] -> send 1 id 0
// CHECK:        coll.send in[1:2] -> send 1 id 1 {channel = 1 : i64
coll.program @channels allgather ranks 2 units 4 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:2] -> out[0:2]
    coll.send in[0:1] -> send 1 id 0 {step = 1}
    coll.send in[1:2] -> send 1 id 1 {step = 1, channel = 1}
    coll.recv recv 1 id 2 -> out[2:4] {step = 1}
  }
  coll.rank 1 {
    coll.local_copy in[0:2] -> out[2:4]
    coll.send in[0:2] -> send 0 id 2 {step = 1}
    coll.recv recv 0 id 0 -> out[0:1] {step = 1}
    coll.recv recv 0 id 1 -> out[1:2] {step = 1, channel = 1}
  }
}
