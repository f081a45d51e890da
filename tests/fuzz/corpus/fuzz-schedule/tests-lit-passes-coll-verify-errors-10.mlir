coll.schedule @mixed allreduce ranks 2 chunks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 0 chunk 1
  %s = coll.reduce %a, %b at rank 0
}
