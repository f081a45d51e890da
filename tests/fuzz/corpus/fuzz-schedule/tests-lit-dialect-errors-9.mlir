coll.schedule @s allreduce ranks 4 chunks 4 op sum {
  %a = coll.input rank 1 chunk 4
}
