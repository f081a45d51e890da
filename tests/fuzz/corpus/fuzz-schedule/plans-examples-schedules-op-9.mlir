// Dissemination barrier on 3 ranks: tokens may arrive more than once.
coll.schedule @dissemination_barrier_3 barrier ranks 3 {
  %t0 = coll.input rank 0 chunk 0
  %t1 = coll.input rank 1 chunk 0
  %t2 = coll.input rank 2 chunk 0
  %a1 = coll.copy %t0 to rank 1
  %a2 = coll.copy %t1 to rank 2
  %a0 = coll.copy %t2 to rank 0
  %u0 = coll.reduce %t0, %a0 at rank 0
  %u1 = coll.reduce %t1, %a1 at rank 1
  %u2 = coll.reduce %t2, %a2 at rank 2
  %b2 = coll.copy %u0 to rank 2
  %b0 = coll.copy %u1 to rank 0
  %b1 = coll.copy %u2 to rank 1
  %v0 = coll.reduce %u0, %b0 at rank 0
  %v1 = coll.reduce %u1, %b1 at rank 1
  %v2 = coll.reduce %u2, %b2 at rank 2
  coll.output %v0 rank 0 chunk 0
  coll.output %v1 rank 1 chunk 0
  coll.output %v2 rank 2 chunk 0
}
