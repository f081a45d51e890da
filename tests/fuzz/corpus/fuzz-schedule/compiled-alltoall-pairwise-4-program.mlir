coll.program @alltoall_pairwise alltoall ranks 4 algorithm "pairwise" units 4 scratch 0 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[1:2] -> send 1 id 0 {step = 1 : i64}
    coll.recv recv 1 id 1 -> out[1:2] {step = 1 : i64}
    coll.send in[2:3] -> send 2 id 4 {step = 2 : i64}
    coll.recv recv 2 id 6 -> out[2:3] {step = 2 : i64}
    coll.send in[3:4] -> send 3 id 8 {step = 3 : i64}
    coll.recv recv 3 id 11 -> out[3:4] {step = 3 : i64}
  }
  coll.rank 1 {
    coll.local_copy in[1:2] -> out[1:2]
    coll.send in[0:1] -> send 0 id 1 {step = 1 : i64}
    coll.recv recv 0 id 0 -> out[0:1] {step = 1 : i64}
    coll.send in[3:4] -> send 3 id 5 {step = 2 : i64}
    coll.recv recv 3 id 7 -> out[3:4] {step = 2 : i64}
    coll.send in[2:3] -> send 2 id 9 {step = 3 : i64}
    coll.recv recv 2 id 10 -> out[2:3] {step = 3 : i64}
  }
  coll.rank 2 {
    coll.local_copy in[2:3] -> out[2:3]
    coll.send in[3:4] -> send 3 id 2 {step = 1 : i64}
    coll.recv recv 3 id 3 -> out[3:4] {step = 1 : i64}
    coll.send in[0:1] -> send 0 id 6 {step = 2 : i64}
    coll.recv recv 0 id 4 -> out[0:1] {step = 2 : i64}
    coll.send in[1:2] -> send 1 id 10 {step = 3 : i64}
    coll.recv recv 1 id 9 -> out[1:2] {step = 3 : i64}
  }
  coll.rank 3 {
    coll.local_copy in[3:4] -> out[3:4]
    coll.send in[2:3] -> send 2 id 3 {step = 1 : i64}
    coll.recv recv 2 id 2 -> out[2:3] {step = 1 : i64}
    coll.send in[1:2] -> send 1 id 7 {step = 2 : i64}
    coll.recv recv 1 id 5 -> out[1:2] {step = 2 : i64}
    coll.send in[0:1] -> send 0 id 11 {step = 3 : i64}
    coll.recv recv 0 id 8 -> out[0:1] {step = 3 : i64}
  }
}
