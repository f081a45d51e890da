coll.schedule @barrier barrier ranks 3 {
  %t0 = coll.input rank 0 chunk 0
  %t1 = coll.input rank 1 chunk 0
  %t2 = coll.input rank 2 chunk 0
  %a = coll.copy %t1 to rank 2
  %u = coll.reduce %t2, %a at rank 2
  coll.output %u rank 2 chunk 0
}
