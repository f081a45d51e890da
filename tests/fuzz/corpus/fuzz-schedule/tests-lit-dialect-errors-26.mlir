coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.recv recv 5 id 0 -> out[1:2]
  }
  coll.rank 1 {}
}
