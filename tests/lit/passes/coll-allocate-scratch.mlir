// coll-allocate-scratch shares tmp units between values whose lifetimes in the ordered program
// do not overlap and that the same channels touch, keeping their unit phase and ranges used
// together contiguous.
// RUN: coll-opt %s --coll-allocate-scratch | FileCheck %s
// RUN: coll-opt %s --coll-allocate-scratch=explain=true 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Three values received one after the other and each consumed before the next arrives: one unit.
// CHECK-LABEL: coll.program @serial reduce ranks 2 op sum root 0 units 1 scratch 1
// CHECK:        coll.recv recv 1 id 0 -> tmp[0:1]
// CHECK-NEXT:   coll.local_reduce in[0:1], tmp[0:1] -> out[0:1]
// CHECK-NEXT:   coll.recv recv 1 id 1 -> tmp[0:1]
// CHECK-NEXT:   coll.local_reduce out[0:1], tmp[0:1] -> out[0:1]
// CHECK-NEXT:   coll.recv recv 1 id 2 -> tmp[0:1]
// EXPLAIN: remark: scratch: 1 tmp unit shared by values that had 3 units of their own
coll.program @serial reduce ranks 2 op sum root 0 units 1 scratch 3 {
  coll.rank 0 {
    coll.recv recv 1 id 0 -> tmp[0:1]
    coll.local_reduce in[0:1], tmp[0:1] -> out[0:1]
    coll.recv recv 1 id 1 -> tmp[1:2]
    coll.local_reduce out[0:1], tmp[1:2] -> out[0:1]
    coll.recv recv 1 id 2 -> tmp[2:3]
    coll.local_reduce out[0:1], tmp[2:3] -> out[0:1]
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 0 id 0
    coll.send in[0:1] -> send 0 id 1
    coll.send in[0:1] -> send 0 id 2
  }
}

// Values alive together keep units of their own; a two-unit range stays in one piece, at a
// unit of its phase (units 2 per block here: even units are phase 0).
// CHECK-LABEL: coll.program @overlap allreduce ranks 2 op sum units 2 scratch 3
// CHECK:        coll.recv recv 1 id 0 -> tmp[0:2]
// CHECK-NEXT:   coll.recv recv 1 id 1 -> tmp[2:3]
// CHECK-NEXT:   coll.local_reduce in[0:1], tmp[0:1], tmp[2:3] -> out[0:1]
coll.program @overlap allreduce ranks 2 op sum units 2 scratch 6 {
  coll.rank 0 {
    coll.recv recv 1 id 0 -> tmp[2:4]
    coll.recv recv 1 id 1 -> tmp[4:5]
    coll.local_reduce in[0:1], tmp[2:3], tmp[4:5] -> out[0:1]
    coll.local_copy tmp[3:4] -> out[1:2]
  }
  coll.rank 1 {
    coll.send in[0:2] -> send 0 id 0
    coll.send in[0:1] -> send 0 id 1
    coll.local_copy in[0:2] -> out[0:2]
  }
}

// Values on different channels never share a unit, even one after the other in program order:
// sharing would make channel 1 wait for channel 0 (an `after` reference) where its data does
// not. The values the same two channels touch (received on 0, reduced on 1) share one.
// CHECK-LABEL: coll.program @channels reduce ranks 2 op sum root 0 units 1 scratch 3
// CHECK:        coll.recv recv 1 id 0 -> tmp[0:1]{{$}}
// CHECK-NEXT:   coll.local_reduce in[0:1], tmp[0:1] -> out[0:1]{{$}}
// CHECK-NEXT:   coll.recv recv 1 id 1 -> tmp[2:3] {channel = 1 : i64}
// CHECK-NEXT:   coll.local_reduce out[0:1], tmp[2:3] -> out[0:1] {channel = 1 : i64}
// CHECK-NEXT:   coll.recv recv 1 id 2 -> tmp[1:2]{{$}}
// CHECK-NEXT:   coll.local_reduce out[0:1], tmp[1:2] -> out[0:1] {channel = 1 : i64}
// CHECK-NEXT:   coll.recv recv 1 id 3 -> tmp[1:2]{{$}}
// CHECK-NEXT:   coll.local_reduce out[0:1], tmp[1:2] -> out[0:1] {channel = 1 : i64}
coll.program @channels reduce ranks 2 op sum root 0 units 1 scratch 4 {
  coll.rank 0 {
    coll.recv recv 1 id 0 -> tmp[0:1] {channel = 0}
    coll.local_reduce in[0:1], tmp[0:1] -> out[0:1] {channel = 0}
    coll.recv recv 1 id 1 -> tmp[1:2] {channel = 1}
    coll.local_reduce out[0:1], tmp[1:2] -> out[0:1] {channel = 1}
    coll.recv recv 1 id 2 -> tmp[2:3] {channel = 0}
    coll.local_reduce out[0:1], tmp[2:3] -> out[0:1] {channel = 1}
    coll.recv recv 1 id 3 -> tmp[3:4] {channel = 0}
    coll.local_reduce out[0:1], tmp[3:4] -> out[0:1] {channel = 1}
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 0 id 0 {channel = 0}
    coll.send in[0:1] -> send 0 id 1 {channel = 1}
    coll.send in[0:1] -> send 0 id 2 {channel = 0}
    coll.send in[0:1] -> send 0 id 3 {channel = 0}
  }
}
