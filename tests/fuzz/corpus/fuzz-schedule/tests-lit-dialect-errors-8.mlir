coll.schedule @s allreduce ranks 4 chunks 4 op sum {
  %a = coll.input rank 4 chunk 0
}
