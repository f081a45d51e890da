// Binomial-tree broadcast on 4 ranks from root 2, message in 2 chunks.
coll.schedule @binomial_broadcast_4 broadcast ranks 4 chunks 2 root 2 {
  %x0 = coll.input rank 2 chunk 0
  %x1 = coll.input rank 2 chunk 1
  coll.output %x0 rank 2 chunk 0
  coll.output %x1 rank 2 chunk 1
  %a0 = coll.copy %x0 to rank 0
  %a1 = coll.copy %x1 to rank 0
  %b0 = coll.copy %x0 to rank 3
  %b1 = coll.copy %x1 to rank 3
  %c0 = coll.copy %a0 to rank 1
  %c1 = coll.copy %a1 to rank 1
  coll.output %a0 rank 0 chunk 0
  coll.output %a1 rank 0 chunk 1
  coll.output %b0 rank 3 chunk 0
  coll.output %b1 rank 3 chunk 1
  coll.output %c0 rank 1 chunk 0
  coll.output %c1 rank 1 chunk 1
}
