coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.local_copy scratch[0:1] -> out[0:1]
  }
  coll.rank 1 {}
}
