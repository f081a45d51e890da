coll.program @reduce_scatter_recursive_halving reduce_scatter ranks 4 op sum algorithm "recursive-halving" units 4 scratch 3 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[2:4] -> send 2 id 0 {step = 1 : i64}
    coll.recv recv 2 id 4 -> tmp[0:2] {step = 1 : i64}
    coll.local_reduce in[1:2], tmp[1:2] -> tmp[2:3] {step = 1 : i64}
    coll.send tmp[2:3] -> send 1 id 8 {step = 1 : i64}
    coll.recv_reduce in[0:1], tmp[0:1], recv 1 id 9 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 1 {
    coll.send in[2:4] -> send 3 id 2 {step = 1 : i64}
    coll.recv recv 3 id 6 -> tmp[0:2] {step = 1 : i64}
    coll.local_reduce in[0:1], tmp[0:1] -> tmp[2:3] {step = 1 : i64}
    coll.send tmp[2:3] -> send 0 id 9 {step = 1 : i64}
    coll.recv_reduce recv 0 id 8, in[1:2], tmp[1:2] -> out[0:1] {step = 2 : i64}
  }
  coll.rank 2 {
    coll.send in[0:2] -> send 0 id 4 {step = 1 : i64}
    coll.recv recv 0 id 0 -> tmp[0:2] {step = 1 : i64}
    coll.local_reduce tmp[1:2], in[3:4] -> tmp[2:3] {step = 1 : i64}
    coll.send tmp[2:3] -> send 3 id 10 {step = 1 : i64}
    coll.recv_reduce tmp[0:1], in[2:3], recv 3 id 11 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 3 {
    coll.send in[0:2] -> send 1 id 6 {step = 1 : i64}
    coll.recv recv 1 id 2 -> tmp[0:2] {step = 1 : i64}
    coll.local_reduce tmp[0:1], in[2:3] -> tmp[2:3] {step = 1 : i64}
    coll.send tmp[2:3] -> send 2 id 11 {step = 1 : i64}
    coll.recv_reduce recv 2 id 10, tmp[1:2], in[3:4] -> out[0:1] {step = 2 : i64}
  }
}
