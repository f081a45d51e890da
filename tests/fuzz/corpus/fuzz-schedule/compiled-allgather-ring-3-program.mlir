coll.program @allgather_ring allgather ranks 3 algorithm "ring" units 3 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[0:1] -> send 1 id 0 {step = 1 : i64}
    coll.recv_copy_send recv 2 id 2 -> out[2:3], send 1 id 5 {step = 1 : i64}
    coll.recv recv 2 id 4 -> out[1:2] {step = 2 : i64}
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[1:2]
    coll.send in[0:1] -> send 2 id 1 {step = 1 : i64}
    coll.recv_copy_send recv 0 id 0 -> out[0:1], send 2 id 3 {step = 1 : i64}
    coll.recv recv 0 id 5 -> out[2:3] {step = 2 : i64}
  }
  coll.rank 2 {
    coll.local_copy in[0:1] -> out[2:3]
    coll.send in[0:1] -> send 0 id 2 {step = 1 : i64}
    coll.recv_copy_send recv 1 id 1 -> out[1:2], send 0 id 4 {step = 1 : i64}
    coll.recv recv 1 id 3 -> out[0:1] {step = 2 : i64}
  }
}
