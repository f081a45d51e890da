coll.program @ag3 allgather ranks 3 units 3 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[0:1] -> send 1 id 0
    coll.recv_copy_send recv 2 id 2 -> out[2:3], send 1 id 5
    coll.recv recv 2 id 4 -> out[1:2]
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[1:2]
    coll.recv_copy_send recv 0 id 0 -> out[0:1], send 2 id 3
    coll.send in[0:1] -> send 2 id 1
    coll.recv recv 0 id 5 -> out[2:3]
  }
  coll.rank 2 {
    coll.local_copy in[0:1] -> out[2:3]
    coll.recv_copy_send recv 1 id 1 -> out[1:2], send 0 id 4
    coll.recv recv 1 id 3 -> out[0:1]
    coll.send in[0:1] -> send 0 id 2
  }
}

coll.program @exchange allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.recv recv 1 id 1 -> out[1:2] {step = 1 : i64}
    coll.send in[0:1] -> send 1 id 0 {step = 2 : i64}
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1] {step = 1 : i64}
    coll.send in[0:1] -> send 0 id 1 {step = 2 : i64}
  }
}
