coll.program @allreduce_binomial_tree allreduce ranks 3 op sum algorithm "binomial-tree" units 1 scratch 1 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.recv recv 2 id 0 -> tmp[0:1] {step = 1 : i64}
    coll.recv_reduce_send in[0:1], recv 1 id 1, tmp[0:1] -> out[0:1], send 1 id 2 {step = 2 : i64}
    coll.send out[0:1] -> send 2 id 3 {step = 4 : i64}
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 0 id 1 {step = 2 : i64}
    coll.recv recv 0 id 2 -> out[0:1] {step = 3 : i64}
  }
  coll.rank 2 {
    coll.send in[0:1] -> send 0 id 0 {step = 1 : i64}
    coll.recv recv 0 id 3 -> out[0:1] {step = 4 : i64}
  }
}
