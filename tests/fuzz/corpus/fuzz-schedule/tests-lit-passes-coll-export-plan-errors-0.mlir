coll.program @stuck allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.recv recv 1 id 1 -> out[1:2]
    coll.local_copy in[0:1] -> out[0:1]
    coll.send in[0:1] -> send 1 id 0
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1]
    coll.local_copy in[0:1] -> out[1:2]
    coll.send in[0:1] -> send 0 id 1
  }
}
