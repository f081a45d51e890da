// coll-to-program places values, pairs transfers, fuses receives, and checks the programs.
// RUN: coll-opt %s --coll-lower --coll-fuse-reduce-copy --coll-schedule-steps --coll-to-program | FileCheck %s

// CHECK-LABEL: coll.program @reduce3 reduce ranks 3 op sum root 2 algorithm "chain" units 1 scratch 0
// The received partial is folded by the instruction that receives it, and forwarded at once.
// CHECK:      coll.rank 0 {
// CHECK-NEXT:   coll.send in[0:1] -> send 1 id 0
// CHECK:      coll.rank 1 {
// CHECK-NEXT:   coll.recv_reduce_send recv 0 id 0, in[0:1] -> send 2 id 1
// CHECK:      coll.rank 2 {
// CHECK-NEXT:   coll.recv_reduce recv 1 id 1, in[0:1] -> out[0:1]
coll.schedule @reduce3 reduce ranks 3 op sum root 2 algorithm "chain" {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1
  %p = coll.reduce_send %x, %b at rank 1 to rank 2
  %r = coll.reduce %p, %c at rank 2
  coll.output %r rank 2 chunk 0
}

// An allgather's own block is copied from `in` to `out`; forwarded blocks are received
// straight into `out` and sent on by the same instruction.
// CHECK-LABEL: coll.program @ag3 allgather ranks 3 algorithm "ring" units 3 scratch 0
// CHECK:      coll.rank 1 {
// CHECK:        coll.local_copy in[0:1] -> out[1:2]
// CHECK:        coll.recv_copy_send recv 0 id {{[0-9]+}} -> out[0:1], send 2 id {{[0-9]+}}
coll.collective @ag3 allgather ranks 3 algorithm "ring"

