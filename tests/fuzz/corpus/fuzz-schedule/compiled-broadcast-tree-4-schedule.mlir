coll.schedule @broadcast_binomial_tree broadcast ranks 4 root 2 algorithm "binomial-tree" {
  %0 = coll.input rank 2 chunk 0
  coll.output %0 rank 2 chunk 0
  %1 = coll.copy %0 to rank 3 {step = 1 : i64}
  coll.output %1 rank 3 chunk 0
  %2 = coll.copy %0 to rank 0 {step = 2 : i64}
  coll.output %2 rank 0 chunk 0
  %3 = coll.copy %1 to rank 1 {step = 2 : i64}
  coll.output %3 rank 1 chunk 0
}
