coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {}
  coll.rank 1 {}
  coll.rank 2 {}
}
