coll.schedule @s reduce ranks 3 op sum root 0 {
  %a = coll.input rank 1 chunk 0
  coll.output %a rank 1 chunk 0
}
