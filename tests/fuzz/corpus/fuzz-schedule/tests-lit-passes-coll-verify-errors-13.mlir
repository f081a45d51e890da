coll.schedule @slices allreduce ranks 2 slices 2 op sum {
  %a = coll.input rank 0 chunk 0 slice 1
  %b = coll.input rank 1 chunk 0 slice 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
}
