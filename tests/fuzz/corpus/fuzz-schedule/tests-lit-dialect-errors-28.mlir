coll.program @p allgather ranks 2 units 2 scratch 1 {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:2]
  }
  coll.rank 1 {}
}
