coll.schedule @range allgather ranks 2 {
  %a = coll.input rank 0 chunk 0
  %b = coll.copy %a to rank 2
}
