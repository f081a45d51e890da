coll.program @broadcast_binomial_tree broadcast ranks 4 root 2 algorithm "binomial-tree" units 1 scratch 0 {
  coll.rank 0 {
    coll.recv recv 2 id 1 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 1 {
    coll.recv recv 3 id 2 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 2 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[0:1] -> send 3 id 0 {step = 1 : i64}
    coll.send in[0:1] -> send 0 id 1 {step = 2 : i64}
  }
  coll.rank 3 {
    coll.recv_copy_send recv 2 id 0 -> out[0:1], send 1 id 2 {step = 1 : i64}
  }
}
