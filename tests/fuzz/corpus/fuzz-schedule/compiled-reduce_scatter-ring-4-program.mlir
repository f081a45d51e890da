coll.program @reduce_scatter_ring reduce_scatter ranks 4 op min algorithm "ring" units 4 scratch 0 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[3:4] -> send 1 id 3 {step = 1 : i64}
    coll.recv_reduce_send recv 3 id 2, in[2:3] -> send 1 id 6 {step = 1 : i64}
    coll.recv_reduce_send recv 3 id 5, in[1:2] -> send 1 id 9 {step = 2 : i64}
    coll.recv_reduce recv 3 id 8, in[0:1] -> out[0:1] {step = 3 : i64}
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 2 id 0 {step = 1 : i64}
    coll.recv_reduce_send recv 0 id 3, in[3:4] -> send 2 id 7 {step = 1 : i64}
    coll.recv_reduce_send recv 0 id 6, in[2:3] -> send 2 id 10 {step = 2 : i64}
    coll.recv_reduce recv 0 id 9, in[1:2] -> out[0:1] {step = 3 : i64}
  }
  coll.rank 2 {
    coll.send in[1:2] -> send 3 id 1 {step = 1 : i64}
    coll.recv_reduce_send recv 1 id 0, in[0:1] -> send 3 id 4 {step = 1 : i64}
    coll.recv_reduce_send recv 1 id 7, in[3:4] -> send 3 id 11 {step = 2 : i64}
    coll.recv_reduce recv 1 id 10, in[2:3] -> out[0:1] {step = 3 : i64}
  }
  coll.rank 3 {
    coll.send in[2:3] -> send 0 id 2 {step = 1 : i64}
    coll.recv_reduce_send recv 2 id 1, in[1:2] -> send 0 id 5 {step = 1 : i64}
    coll.recv_reduce_send recv 2 id 4, in[0:1] -> send 0 id 8 {step = 2 : i64}
    coll.recv_reduce recv 2 id 11, in[3:4] -> out[0:1] {step = 3 : i64}
  }
}
