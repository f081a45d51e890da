coll.schedule @s allgather ranks 2 {
  %a = coll.input rank 1 chunk 0
  %b = coll.copy %a to rank 9
}
