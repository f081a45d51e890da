// coll-export-plan proves each program loads as a runtime plan (format 2) and writes it.
// RUN: coll-opt %s --coll-export-plan=output=%t.plan.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.plan.json
// RUN: coll-opt %s --coll-export-plan=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Channel 1 of rank 1 copies the own block, which channel 0 then sends: an `after` reference.
// On rank 0 the copy writes out[0:1], where an in-place call keeps the input channel 0 sends
// first: the copy waits for the send.
// CHECK: "algorithm":"two-channels"
// CHECK: "programs":[{"channels":[{"ops":[{"op":"send","send":[1],"src":["in[0:1]"]},{"dst":["out[1:2]"],"op":"recv","recv":1}]},{"ops":[{"after":[{"channel":0,"op":0}],"dst":["out[0:1]"],"op":"copy","src":["in[0:1]"]}]}],"rank":0}
// CHECK-SAME: {"channels":[{"ops":[{"after":[{"channel":1,"op":0}],"op":"send","send":[0],"src":["out[1:2]"]},{"dst":["out[0:1]"],"op":"recv","recv":0}]},{"ops":[{"dst":["out[1:2]"],"op":"copy","src":["in[0:1]"]}]}],"rank":1}
// CHECK: "version":2
// EXPLAIN: remark: program: 6 instructions over 2 ranks, up to 2 channels per rank, 2 waits between channels
coll.program @ag2 allgather ranks 2 algorithm "two-channels" units 2 scratch 0 {
  coll.rank 0 {
    coll.send in[0:1] -> send 1 id 0
    coll.local_copy in[0:1] -> out[0:1] {channel = 1}
    coll.recv recv 1 id 1 -> out[1:2]
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[1:2] {channel = 1}
    coll.send out[1:2] -> send 0 id 1
    coll.recv recv 0 id 0 -> out[0:1]
  }
}
