coll.schedule @missing allreduce ranks 3 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
  %y = coll.copy %s to rank 0
  %z = coll.copy %s to rank 2
  coll.output %s rank 1 chunk 0
  coll.output %y rank 0 chunk 0
  coll.output %z rank 2 chunk 0
}
