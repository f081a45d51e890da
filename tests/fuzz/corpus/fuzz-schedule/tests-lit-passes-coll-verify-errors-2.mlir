coll.schedule @location allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %s = coll.reduce %a, %b at rank 1
}
