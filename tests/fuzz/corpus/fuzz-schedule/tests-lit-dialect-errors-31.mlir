coll.program @p allgather ranks 3 units 3 scratch 0 {
  coll.rank 0 {
    coll.send in[0:1] -> send 1 id 0
  }
  coll.rank 1 {}
  coll.rank 2 {
    coll.recv recv 0 id 0 -> out[0:1]
  }
}
