coll.program @allreduce_recursive_doubling allreduce ranks 4 op max algorithm "recursive-doubling" units 1 scratch 1 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[0:1] -> send 1 id 0 {step = 1 : i64}
    coll.recv_reduce_send in[0:1], recv 1 id 1 -> tmp[0:1], send 2 id 4 {step = 1 : i64}
    coll.recv_reduce tmp[0:1], recv 2 id 6 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 0 id 1 {step = 1 : i64}
    coll.recv_reduce_send recv 0 id 0, in[0:1] -> tmp[0:1], send 3 id 5 {step = 1 : i64}
    coll.recv_reduce tmp[0:1], recv 3 id 7 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 2 {
    coll.send in[0:1] -> send 3 id 2 {step = 1 : i64}
    coll.recv_reduce_send in[0:1], recv 3 id 3 -> tmp[0:1], send 0 id 6 {step = 1 : i64}
    coll.recv_reduce recv 0 id 4, tmp[0:1] -> out[0:1] {step = 2 : i64}
  }
  coll.rank 3 {
    coll.send in[0:1] -> send 2 id 3 {step = 1 : i64}
    coll.recv_reduce_send recv 2 id 2, in[0:1] -> tmp[0:1], send 1 id 7 {step = 1 : i64}
    coll.recv_reduce recv 1 id 5, tmp[0:1] -> out[0:1] {step = 2 : i64}
  }
}
