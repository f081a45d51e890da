coll.program @p allgather ranks 8 slices 2097152 units 8 scratch 0 {
}
