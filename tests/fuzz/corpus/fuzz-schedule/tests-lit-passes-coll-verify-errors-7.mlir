coll.schedule @order allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %b to rank 0
  %y = coll.copy %a to rank 1
  %s0 = coll.reduce %a, %x at rank 0
  %s1 = coll.reduce %b, %y at rank 1
  coll.output %s0 rank 0 chunk 0
  coll.output %s1 rank 1 chunk 0
}
