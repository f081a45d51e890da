coll.schedule @s allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  %b:2 = coll.dup %a to ranks [1, 3]
}
