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

