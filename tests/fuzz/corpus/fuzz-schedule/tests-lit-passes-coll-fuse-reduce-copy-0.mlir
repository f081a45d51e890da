coll.schedule @chain reduce ranks 3 op sum root 2 {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
  %y = coll.copy %s to rank 2 {step = 1}
  %r = coll.reduce %y, %c at rank 2
  coll.output %r rank 2 chunk 0
}

coll.schedule @kept allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
  %y = coll.copy %s to rank 0
  coll.output %s rank 1 chunk 0
  coll.output %y rank 0 chunk 0
}
