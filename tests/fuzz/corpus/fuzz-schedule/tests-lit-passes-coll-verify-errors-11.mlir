coll.schedule @foreign allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %c to rank 0
  coll.output %x rank 0 chunk 1
}
