coll.schedule @s allreduce ranks 2 op sum {
  %a = coll.input rank 1 chunk 0
  %b = coll.reduce %a at rank 1
}
