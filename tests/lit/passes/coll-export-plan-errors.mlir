// coll-export-plan refuses a program the runtime would refuse, with the plan's field and reason.
// RUN: not coll-opt %s --coll-export-plan 2>&1 | FileCheck %s

// Both ranks wait for the other's message first.
// CHECK: error: 'coll.program' op is not a valid plan: coll.program @stuck: programs[0].channels[0].ops[0]: deadlock: 2 of 2 ranks cannot finish: rank 0 waits at channels[0].ops[0] for a message from rank 1
coll.program @stuck allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.recv recv 1 id 1 -> out[1:2]
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[0:1] -> send 1 id 0
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1]
    coll.local_copy in[0:1] -> out[1:2]
    coll.send in[0:1] -> send 0 id 1
  }
}
