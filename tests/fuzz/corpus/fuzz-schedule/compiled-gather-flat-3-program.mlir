coll.program @gather_flat gather ranks 3 root 1 algorithm "flat" units 3 scratch 0 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[0:1] -> send 1 id 1 {step = 2 : i64}
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[1:2]
    coll.recv recv 2 id 0 -> out[2:3] {step = 1 : i64}
    coll.recv recv 0 id 1 -> out[0:1] {step = 2 : i64}
  }
  coll.rank 2 {
    coll.send in[0:1] -> send 1 id 0 {step = 1 : i64}
  }
}
