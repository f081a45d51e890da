// Hand-written schedules of every collective kind, unrolled for one rank count: examples for
// researchers, verified by the lit tests. A schedule for every rank count is a template:
// plans/examples/templates (the ring allreduce is there).

// Ring allreduce with the fused reduce-then-send op on 3 ranks.
coll.schedule @ring_allreduce_fused_3 allreduce ranks 3 chunks 3 op sum {
  %a0 = coll.input rank 0 chunk 0
  %a1 = coll.input rank 0 chunk 1
  %a2 = coll.input rank 0 chunk 2
  %b0 = coll.input rank 1 chunk 0
  %b1 = coll.input rank 1 chunk 1
  %b2 = coll.input rank 1 chunk 2
  %c0 = coll.input rank 2 chunk 0
  %c1 = coll.input rank 2 chunk 1
  %c2 = coll.input rank 2 chunk 2
  // chunk 0: 1 -> 2 -> 0
  %p0 = coll.copy %b0 to rank 2
  %q0 = coll.reduce_send %p0, %c0 at rank 2 to rank 0
  %r0 = coll.reduce %q0, %a0 at rank 0
  // chunk 1: 2 -> 0 -> 1
  %p1 = coll.copy %c1 to rank 0
  %q1 = coll.reduce_send %p1, %a1 at rank 0 to rank 1
  %r1 = coll.reduce %q1, %b1 at rank 1
  // chunk 2: 0 -> 1 -> 2
  %p2 = coll.copy %a2 to rank 1
  %q2 = coll.reduce_send %p2, %b2 at rank 1 to rank 2
  %r2 = coll.reduce %q2, %c2 at rank 2
  // allgather
  %s0:2 = coll.dup %r0 to ranks [1, 2]
  %s1:2 = coll.dup %r1 to ranks [2, 0]
  %s2:2 = coll.dup %r2 to ranks [0, 1]
  coll.output %r0 rank 0 chunk 0
  coll.output %s0#0 rank 1 chunk 0
  coll.output %s0#1 rank 2 chunk 0
  coll.output %r1 rank 1 chunk 1
  coll.output %s1#0 rank 2 chunk 1
  coll.output %s1#1 rank 0 chunk 1
  coll.output %r2 rank 2 chunk 2
  coll.output %s2#0 rank 0 chunk 2
  coll.output %s2#1 rank 1 chunk 2
}

// Ring allgather on 4 ranks.
coll.schedule @ring_allgather_4 allgather ranks 4 {
  %x0 = coll.input rank 0 chunk 0
  %x1 = coll.input rank 1 chunk 0
  %x2 = coll.input rank 2 chunk 0
  %x3 = coll.input rank 3 chunk 0
  coll.output %x0 rank 0 chunk 0
  coll.output %x1 rank 1 chunk 1
  coll.output %x2 rank 2 chunk 2
  coll.output %x3 rank 3 chunk 3
  %a1 = coll.copy %x0 to rank 1
  %a2 = coll.copy %a1 to rank 2
  %a3 = coll.copy %a2 to rank 3
  coll.output %a1 rank 1 chunk 0
  coll.output %a2 rank 2 chunk 0
  coll.output %a3 rank 3 chunk 0
  %b2 = coll.copy %x1 to rank 2
  %b3 = coll.copy %b2 to rank 3
  %b0 = coll.copy %b3 to rank 0
  coll.output %b2 rank 2 chunk 1
  coll.output %b3 rank 3 chunk 1
  coll.output %b0 rank 0 chunk 1
  %c3 = coll.copy %x2 to rank 3
  %c0 = coll.copy %c3 to rank 0
  %c1 = coll.copy %c0 to rank 1
  coll.output %c3 rank 3 chunk 2
  coll.output %c0 rank 0 chunk 2
  coll.output %c1 rank 1 chunk 2
  %d0 = coll.copy %x3 to rank 0
  %d1 = coll.copy %d0 to rank 1
  %d2 = coll.copy %d1 to rank 2
  coll.output %d0 rank 0 chunk 3
  coll.output %d1 rank 1 chunk 3
  coll.output %d2 rank 2 chunk 3
}

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

// Direct all-to-all on 3 ranks: rank r's chunk j goes to rank j's chunk r.
coll.schedule @direct_alltoall_3 alltoall ranks 3 {
  %a0 = coll.input rank 0 chunk 0
  %a1 = coll.input rank 0 chunk 1
  %a2 = coll.input rank 0 chunk 2
  %b0 = coll.input rank 1 chunk 0
  %b1 = coll.input rank 1 chunk 1
  %b2 = coll.input rank 1 chunk 2
  %c0 = coll.input rank 2 chunk 0
  %c1 = coll.input rank 2 chunk 1
  %c2 = coll.input rank 2 chunk 2
  coll.output %a0 rank 0 chunk 0
  coll.output %b1 rank 1 chunk 1
  coll.output %c2 rank 2 chunk 2
  %t01 = coll.copy %a1 to rank 1
  %t02 = coll.copy %a2 to rank 2
  %t10 = coll.copy %b0 to rank 0
  %t12 = coll.copy %b2 to rank 2
  %t20 = coll.copy %c0 to rank 0
  %t21 = coll.copy %c1 to rank 1
  coll.output %t01 rank 1 chunk 0
  coll.output %t02 rank 2 chunk 0
  coll.output %t10 rank 0 chunk 1
  coll.output %t12 rank 2 chunk 1
  coll.output %t20 rank 0 chunk 2
  coll.output %t21 rank 1 chunk 2
}

// Binomial-tree broadcast on 4 ranks from root 2, message in 2 chunks.
coll.schedule @binomial_broadcast_4 broadcast ranks 4 chunks 2 root 2 {
  %x0 = coll.input rank 2 chunk 0
  %x1 = coll.input rank 2 chunk 1
  coll.output %x0 rank 2 chunk 0
  coll.output %x1 rank 2 chunk 1
  %a0 = coll.copy %x0 to rank 0
  %a1 = coll.copy %x1 to rank 0
  %b0 = coll.copy %x0 to rank 3
  %b1 = coll.copy %x1 to rank 3
  %c0 = coll.copy %a0 to rank 1
  %c1 = coll.copy %a1 to rank 1
  coll.output %a0 rank 0 chunk 0
  coll.output %a1 rank 0 chunk 1
  coll.output %b0 rank 3 chunk 0
  coll.output %b1 rank 3 chunk 1
  coll.output %c0 rank 1 chunk 0
  coll.output %c1 rank 1 chunk 1
}

// Binomial-tree reduce on 4 ranks to root 0.
coll.schedule @binomial_reduce_4 reduce ranks 4 op prod root 0 {
  %x0 = coll.input rank 0 chunk 0
  %x1 = coll.input rank 1 chunk 0
  %x2 = coll.input rank 2 chunk 0
  %x3 = coll.input rank 3 chunk 0
  %a = coll.copy %x1 to rank 0
  %b = coll.copy %x3 to rank 2
  %c = coll.reduce %x2, %b at rank 2
  %d = coll.copy %c to rank 0
  %e = coll.reduce %x0, %a, %d at rank 0
  coll.output %e rank 0 chunk 0
}

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

// Dissemination barrier on 3 ranks: tokens may arrive more than once.
coll.schedule @dissemination_barrier_3 barrier ranks 3 {
  %t0 = coll.input rank 0 chunk 0
  %t1 = coll.input rank 1 chunk 0
  %t2 = coll.input rank 2 chunk 0
  %a1 = coll.copy %t0 to rank 1
  %a2 = coll.copy %t1 to rank 2
  %a0 = coll.copy %t2 to rank 0
  %u0 = coll.reduce %t0, %a0 at rank 0
  %u1 = coll.reduce %t1, %a1 at rank 1
  %u2 = coll.reduce %t2, %a2 at rank 2
  %b2 = coll.copy %u0 to rank 2
  %b0 = coll.copy %u1 to rank 0
  %b1 = coll.copy %u2 to rank 1
  %v0 = coll.reduce %u0, %b0 at rank 0
  %v1 = coll.reduce %u1, %b1 at rank 1
  %v2 = coll.reduce %u2, %b2 at rank 2
  coll.output %v0 rank 0 chunk 0
  coll.output %v1 rank 1 chunk 0
  coll.output %v2 rank 2 chunk 0
}

// Pipelined allgather on 2 ranks with 2 slices per chunk.
coll.schedule @sliced_allgather_2 allgather ranks 2 slices 2 {
  %a0 = coll.input rank 0 chunk 0 slice 0
  %a1 = coll.input rank 0 chunk 0 slice 1
  %b0 = coll.input rank 1 chunk 0 slice 0
  %b1 = coll.input rank 1 chunk 0 slice 1
  %c0 = coll.copy %a0 to rank 1
  %c1 = coll.copy %a1 to rank 1
  %d0 = coll.copy %b0 to rank 0
  %d1 = coll.copy %b1 to rank 0
  coll.output %a0 rank 0 chunk 0 slice 0
  coll.output %a1 rank 0 chunk 0 slice 1
  coll.output %d0 rank 0 chunk 1 slice 0
  coll.output %d1 rank 0 chunk 1 slice 1
  coll.output %c0 rank 1 chunk 0 slice 0
  coll.output %c1 rank 1 chunk 0 slice 1
  coll.output %b0 rank 1 chunk 1 slice 0
  coll.output %b1 rank 1 chunk 1 slice 1
}

// Remote reads: rank 0 reduces peers' values in place when the schedule allows it.
coll.schedule @one_shot_remote_reads_2 allreduce ranks 2 op sum remote_reads {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %r0 = coll.reduce %a, %b at rank 0
  %r1 = coll.reduce %a, %b at rank 1
  coll.output %r0 rank 0 chunk 0
  coll.output %r1 rank 1 chunk 0
}

// Binomial-tree broadcast on 4 ranks from root 0, one chunk: log2(N) rounds of M.
coll.schedule @binomial_broadcast_1chunk_4 broadcast ranks 4 root 0 {
  %x = coll.input rank 0 chunk 0
  %a = coll.copy %x to rank 2
  %b = coll.copy %x to rank 1
  %c = coll.copy %a to rank 3
  coll.output %x rank 0 chunk 0
  coll.output %a rank 2 chunk 0
  coll.output %b rank 1 chunk 0
  coll.output %c rank 3 chunk 0
}
