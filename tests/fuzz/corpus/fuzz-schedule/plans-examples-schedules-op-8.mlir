// Flat gather and scatter on 3 ranks with root 1.
coll.schedule @flat_gather_3 gather ranks 3 root 1 {
  %x0 = coll.input rank 0 chunk 0
  %x1 = coll.input rank 1 chunk 0
  %x2 = coll.input rank 2 chunk 0
  %a = coll.copy %x0 to rank 1
  %b = coll.copy %x2 to rank 1
  coll.output %a rank 1 chunk 0
  coll.output %x1 rank 1 chunk 1
  coll.output %b rank 1 chunk 2
}
coll.schedule @flat_scatter_3 scatter ranks 3 root 1 {
  %x0 = coll.input rank 1 chunk 0
  %x1 = coll.input rank 1 chunk 1
  %x2 = coll.input rank 1 chunk 2
  %a = coll.copy %x0 to rank 0
  %b = coll.copy %x2 to rank 2
  coll.output %a rank 0 chunk 0
  coll.output %x1 rank 1 chunk 0
  coll.output %b rank 2 chunk 0
}
