coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.send in[0:1] -> send 0 id 0
  }
  coll.rank 1 {}
}
