// Binomial-tree reduce on 4 ranks to root 0.
coll.schedule @binomial_reduce_4 reduce ranks 4 op prod root 0 {
  %x0 = coll.input rank 0 chunk 0
  %x1 = coll.input rank 1 chunk 0
  %x2 = coll.input rank 2 chunk 0
  %x3 = coll.input rank 3 chunk 0
  %a = coll.copy %x1 to rank 0
  %b = coll.copy %x3 to rank 2
  %c = coll.reduce %x2, %b at rank 2
  %d = coll.copy %c to rank 0
  %e = coll.reduce %x0, %a, %d at rank 0
  coll.output %e rank 0 chunk 0
}
