coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[1:2] -> out[1:2]
  }
  coll.rank 1 {}
}
