// Direct all-to-all on 3 ranks: rank r's chunk j goes to rank j's chunk r.
coll.schedule @direct_alltoall_3 alltoall ranks 3 {
  %a0 = coll.input rank 0 chunk 0
  %a1 = coll.input rank 0 chunk 1
  %a2 = coll.input rank 0 chunk 2
  %b0 = coll.input rank 1 chunk 0
  %b1 = coll.input rank 1 chunk 1
  %b2 = coll.input rank 1 chunk 2
  %c0 = coll.input rank 2 chunk 0
  %c1 = coll.input rank 2 chunk 1
  %c2 = coll.input rank 2 chunk 2
  coll.output %a0 rank 0 chunk 0
  coll.output %b1 rank 1 chunk 1
  coll.output %c2 rank 2 chunk 2
  %t01 = coll.copy %a1 to rank 1
  %t02 = coll.copy %a2 to rank 2
  %t10 = coll.copy %b0 to rank 0
  %t12 = coll.copy %b2 to rank 2
  %t20 = coll.copy %c0 to rank 0
  %t21 = coll.copy %c1 to rank 1
  coll.output %t01 rank 1 chunk 0
  coll.output %t02 rank 2 chunk 0
  coll.output %t10 rank 0 chunk 1
  coll.output %t12 rank 2 chunk 1
  coll.output %t20 rank 0 chunk 2
  coll.output %t21 rank 1 chunk 2
}
