coll.schedule @s allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  coll.output %a rank 0 chunk 3
}
