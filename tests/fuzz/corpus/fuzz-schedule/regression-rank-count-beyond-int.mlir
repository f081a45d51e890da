coll.schedule @s allreduce ranks 4294967298 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %a to rank 1
  %r = coll.reduce %x, %b at rank 1
  coll.output %r rank 1 chunk 0
  %y = coll.copy %r to rank 0
  coll.output %y rank 0 chunk 0
}
