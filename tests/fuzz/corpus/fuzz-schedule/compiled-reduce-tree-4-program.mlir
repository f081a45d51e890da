coll.program @reduce_binomial_tree reduce ranks 4 op sum root 1 algorithm "binomial-tree" units 1 scratch 1 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[0:1] -> send 3 id 0 {step = 1 : i64}
  }
  coll.rank 1 {
    coll.recv recv 2 id 1 -> tmp[0:1] {step = 1 : i64}
    coll.recv_reduce in[0:1], tmp[0:1], recv 3 id 2 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 2 {
    coll.send in[0:1] -> send 1 id 1 {step = 1 : i64}
  }
  coll.rank 3 {
    coll.recv_reduce_send in[0:1], recv 0 id 0 -> send 1 id 2 {step = 1 : i64}
  }
}
