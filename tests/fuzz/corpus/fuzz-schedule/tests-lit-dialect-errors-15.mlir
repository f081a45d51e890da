coll.schedule @s allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  %b = coll.dup %a to ranks [1]
}
