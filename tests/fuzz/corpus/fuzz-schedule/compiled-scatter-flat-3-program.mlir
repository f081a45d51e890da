coll.program @scatter_flat scatter ranks 3 root 0 algorithm "flat" units 3 scratch 0 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[1:2] -> send 1 id 0 {step = 1 : i64}
    coll.send in[2:3] -> send 2 id 1 {step = 2 : i64}
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1] {step = 1 : i64}
  }
  coll.rank 2 {
    coll.recv recv 0 id 1 -> out[0:1] {step = 2 : i64}
  }
}
