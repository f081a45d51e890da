coll.program @p allgather ranks 2 units 4 scratch 0 {
  coll.rank 0 {
    coll.send in[0:2] -> send 1 id 0
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1]
  }
}
