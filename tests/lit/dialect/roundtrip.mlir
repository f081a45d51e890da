// Every coll op prints in its custom form and parses back to the same IR.
// RUN: coll-opt %s | coll-opt | FileCheck %s

// CHECK-LABEL: coll.collective @ar allreduce ranks 8 chunks 8 op sum algorithm "ring"
coll.collective @ar allreduce ranks 8 chunks 8 op sum algorithm "ring"
// CHECK: coll.collective @bc broadcast ranks 4 slices 2 root 3
coll.collective @bc broadcast ranks 4 slices 2 root 3
// CHECK: coll.collective @ag allgather ranks 4
coll.collective @ag allgather ranks 4
// CHECK: coll.collective @bar barrier ranks 3
coll.collective @bar barrier ranks 3

// CHECK-LABEL: coll.schedule @level2 reduce ranks 3 op max root 1 remote_reads {
coll.schedule @level2 reduce ranks 3 op max root 1 remote_reads {
  // CHECK: %[[A:.*]] = coll.input rank 0 chunk 0
  %a = coll.input rank 0 chunk 0
  // CHECK: %[[B:.*]] = coll.input rank 1 chunk 0 {step = 0 : i64}
  %b = coll.input rank 1 chunk 0 {step = 0}
  %c = coll.input rank 2 chunk 0
  // CHECK: %[[X:.*]] = coll.copy %[[A]] to rank 1 {channel = 1 : i64, step = 1 : i64}
  %x = coll.copy %a to rank 1 {step = 1, channel = 1}
  // CHECK: %[[D:.*]]:2 = coll.dup %[[X]] to ranks [0, 2]
  %d:2 = coll.dup %x to ranks [0, 2]
  // CHECK: %[[S:.*]] = coll.reduce_send %[[D]]#1, %{{.*}} at rank 2 to rank 1
  %s = coll.reduce_send %d#1, %c at rank 2 to rank 1
  // CHECK: %[[R:.*]] = coll.reduce %[[S]], %[[B]] at rank 1
  %r = coll.reduce %s, %b at rank 1
  // CHECK: coll.output %[[R]] rank 1 chunk 0
  coll.output %r rank 1 chunk 0
}

// CHECK-LABEL: coll.schedule @sliced allgather ranks 2 slices 2 {
coll.schedule @sliced allgather ranks 2 slices 2 {
  // CHECK: coll.input rank 0 chunk 0 slice 1
  %a = coll.input rank 0 chunk 0 slice 1
  // CHECK: coll.output %{{.*}} rank 1 chunk 0 slice 1
  %b = coll.copy %a to rank 1
  coll.output %b rank 1 chunk 0 slice 1
}

// CHECK-LABEL: coll.program @level3 allreduce ranks 2 chunks 2 op sum units 2 scratch 1 {
coll.program @level3 allreduce ranks 2 chunks 2 op sum units 2 scratch 1 {
  // CHECK: coll.rank 0 {
  coll.rank 0 {
    // CHECK-NEXT: coll.send in[1:2] -> send 1 id 0
    coll.send in[1:2] -> send 1 id 0
    // CHECK-NEXT: coll.recv_reduce recv 1 id 1, in[0:1] -> out[0:1]
    coll.recv_reduce recv 1 id 1, in[0:1] -> out[0:1]
    // CHECK-NEXT: coll.dup_send out[0:1] -> tmp[0:1], send 1 id 2 {step = 2 : i64}
    coll.dup_send out[0:1] -> tmp[0:1], send 1 id 2 {step = 2}
    // CHECK-NEXT: coll.recv recv 1 id 3 -> out[1:2]
    coll.recv recv 1 id 3 -> out[1:2]
    // CHECK-NEXT: coll.recv recv 1 id 4 -> tmp[0:1]
    coll.recv recv 1 id 4 -> tmp[0:1]
  }
  coll.rank 1 {
    // CHECK: coll.local_copy in[0:1] -> tmp[0:1]
    coll.local_copy in[0:1] -> tmp[0:1]
    // CHECK-NEXT: coll.send tmp[0:1] -> send 0 id 1
    coll.send tmp[0:1] -> send 0 id 1
    // CHECK-NEXT: coll.recv_reduce_send in[1:2], recv 0 id 0 -> send 0 id 3
    coll.recv_reduce_send in[1:2], recv 0 id 0 -> send 0 id 3
    // CHECK-NEXT: coll.recv_copy_send recv 0 id 2 -> out[0:1], send 0 id 4
    coll.recv_copy_send recv 0 id 2 -> out[0:1], send 0 id 4
    // CHECK-NEXT: coll.local_reduce in[1:2], out[0:1] -> out[1:2]
    coll.local_reduce in[1:2], out[0:1] -> out[1:2]
  }
}

// Token instructions (a barrier's messages) carry no buffer ranges.
// CHECK-LABEL: coll.program @tokens barrier ranks 2 units 0 scratch 0 {
coll.program @tokens barrier ranks 2 units 0 scratch 0 {
  coll.rank 0 {
    // CHECK: coll.send -> send 1 id 0
    coll.send -> send 1 id 0
    // CHECK-NEXT: coll.recv recv 1 id 1 ->
    coll.recv recv 1 id 1 ->
  }
  coll.rank 1 {
    // CHECK: coll.recv_copy_send recv 0 id 0 -> send 0 id 1
    coll.recv_copy_send recv 0 id 0 -> send 0 id 1
  }
}

// sends_first on a schedule and on a program: every send that needs nothing received is posted
// before the receives.
// CHECK-LABEL: coll.schedule @direct alltoall ranks 2 sends_first {
coll.schedule @direct alltoall ranks 2 sends_first {
  %a = coll.input rank 0 chunk 1
  %b = coll.copy %a to rank 1
  coll.output %b rank 1 chunk 0
  %c = coll.input rank 1 chunk 0
  %d = coll.copy %c to rank 0
  coll.output %d rank 0 chunk 1
  %e = coll.input rank 0 chunk 0
  coll.output %e rank 0 chunk 0
  %f = coll.input rank 1 chunk 1
  coll.output %f rank 1 chunk 1
}
// CHECK-LABEL: coll.program @directProgram alltoall ranks 2 units 2 scratch 0 sends_first {
coll.program @directProgram alltoall ranks 2 units 2 scratch 0 sends_first {
  coll.rank 0 {
    coll.send in[1:2] -> send 1 id 0
    coll.recv recv 1 id 1 -> out[1:2]
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 0 id 1
    coll.recv recv 0 id 0 -> out[0:1]
  }
}
