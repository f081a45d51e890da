// Ring allgather on 4 ranks.
coll.schedule @ring_allgather_4 allgather ranks 4 {
  %x0 = coll.input rank 0 chunk 0
  %x1 = coll.input rank 1 chunk 0
  %x2 = coll.input rank 2 chunk 0
  %x3 = coll.input rank 3 chunk 0
  coll.output %x0 rank 0 chunk 0
  coll.output %x1 rank 1 chunk 1
  coll.output %x2 rank 2 chunk 2
  coll.output %x3 rank 3 chunk 3
  %a1 = coll.copy %x0 to rank 1
  %a2 = coll.copy %a1 to rank 2
  %a3 = coll.copy %a2 to rank 3
  coll.output %a1 rank 1 chunk 0
  coll.output %a2 rank 2 chunk 0
  coll.output %a3 rank 3 chunk 0
  %b2 = coll.copy %x1 to rank 2
  %b3 = coll.copy %b2 to rank 3
  %b0 = coll.copy %b3 to rank 0
  coll.output %b2 rank 2 chunk 1
  coll.output %b3 rank 3 chunk 1
  coll.output %b0 rank 0 chunk 1
  %c3 = coll.copy %x2 to rank 3
  %c0 = coll.copy %c3 to rank 0
  %c1 = coll.copy %c0 to rank 1
  coll.output %c3 rank 3 chunk 2
  coll.output %c0 rank 0 chunk 2
  coll.output %c1 rank 1 chunk 2
  %d0 = coll.copy %x3 to rank 0
  %d1 = coll.copy %d0 to rank 1
  %d2 = coll.copy %d1 to rank 2
  coll.output %d0 rank 0 chunk 3
  coll.output %d1 rank 1 chunk 3
  coll.output %d2 rank 2 chunk 3
}
