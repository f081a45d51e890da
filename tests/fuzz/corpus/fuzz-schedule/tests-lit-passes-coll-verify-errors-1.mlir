coll.schedule @double allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
  %t = coll.reduce %s, %b at rank 1
  %y = coll.copy %t to rank 0
  coll.output %t rank 1 chunk 0
  coll.output %y rank 0 chunk 0
}
