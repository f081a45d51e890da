coll.schedule @broken allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %y = coll.copy %b to rank 0
  %s = coll.reduce %a, %y at rank 0
  coll.output %s rank 0 chunk 0
  coll.output %b rank 1 chunk 0
}
