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
