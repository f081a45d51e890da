// Ring reduce-scatter on 3 ranks: rank r ends with the sum of everyone's chunk r.
coll.schedule @ring_reduce_scatter_3 reduce_scatter ranks 3 op max {
  %a0 = coll.input rank 0 chunk 0
  %a1 = coll.input rank 0 chunk 1
  %a2 = coll.input rank 0 chunk 2
  %b0 = coll.input rank 1 chunk 0
  %b1 = coll.input rank 1 chunk 1
  %b2 = coll.input rank 1 chunk 2
  %c0 = coll.input rank 2 chunk 0
  %c1 = coll.input rank 2 chunk 1
  %c2 = coll.input rank 2 chunk 2
  %p0 = coll.copy %b0 to rank 2
  %q0 = coll.reduce_send %p0, %c0 at rank 2 to rank 0
  %r0 = coll.reduce %q0, %a0 at rank 0
  coll.output %r0 rank 0 chunk 0
  %p1 = coll.copy %c1 to rank 0
  %q1 = coll.reduce_send %p1, %a1 at rank 0 to rank 1
  %r1 = coll.reduce %q1, %b1 at rank 1
  coll.output %r1 rank 1 chunk 0
  %p2 = coll.copy %a2 to rank 1
  %q2 = coll.reduce_send %p2, %b2 at rank 1 to rank 2
  %r2 = coll.reduce %q2, %c2 at rank 2
  coll.output %r2 rank 2 chunk 0
}
