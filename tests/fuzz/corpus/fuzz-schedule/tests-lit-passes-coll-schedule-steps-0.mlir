coll.schedule @binomial broadcast ranks 4 root 0 {
  %x = coll.input rank 0 chunk 0
  %b = coll.copy %x to rank 1
  %a = coll.copy %x to rank 2
  %c = coll.copy %a to rank 3
  coll.output %x rank 0 chunk 0
  coll.output %a rank 2 chunk 0
  coll.output %b rank 1 chunk 0
  coll.output %c rank 3 chunk 0
}
