coll.schedule @output_location allgather ranks 2 {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  coll.output %a rank 0 chunk 0
  coll.output %b rank 1 chunk 1
  %c = coll.copy %a to rank 1
  coll.output %c rank 1 chunk 0
  coll.output %b rank 0 chunk 1
}
