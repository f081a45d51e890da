coll.schedule @s allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 0 chunk 0
  %c = coll.reduce_send %a, %b at rank 0 to rank 2
}
