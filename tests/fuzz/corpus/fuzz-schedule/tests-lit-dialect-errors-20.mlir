coll.program @p allgather ranks 2 units 3 scratch 0 {
  coll.rank 0 {}
  coll.rank 1 {}
}
