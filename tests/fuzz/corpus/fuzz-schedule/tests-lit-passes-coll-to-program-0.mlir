coll.schedule @reduce3 reduce ranks 3 op sum root 2 algorithm "chain" {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1
  %p = coll.reduce_send %x, %b at rank 1 to rank 2
  %r = coll.reduce %p, %c at rank 2
  coll.output %r rank 2 chunk 0
}

coll.collective @ag3 allgather ranks 3 algorithm "ring"
