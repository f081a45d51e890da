// Remote reads: rank 0 reduces peers' values in place when the schedule allows it.
coll.schedule @one_shot_remote_reads_2 allreduce ranks 2 op sum remote_reads {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %r0 = coll.reduce %a, %b at rank 0
  %r1 = coll.reduce %a, %b at rank 1
  coll.output %r0 rank 0 chunk 0
  coll.output %r1 rank 1 chunk 0
}
