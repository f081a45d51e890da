coll.schedule @reduce_binomial_tree reduce ranks 4 op sum root 1 algorithm "binomial-tree" {
  %0 = coll.input rank 0 chunk 0
  %1 = coll.input rank 3 chunk 0
  %2 = coll.input rank 2 chunk 0
  %3 = coll.input rank 1 chunk 0
  %4 = coll.copy %0 to rank 3 {step = 1 : i64}
  %5 = coll.copy %2 to rank 1 {step = 1 : i64}
  %6 = coll.reduce_send %1, %4 at rank 3 to rank 1 {step = 2 : i64}
  %7 = coll.reduce %3, %5, %6 at rank 1 {step = 2 : i64}
  coll.output %7 rank 1 chunk 0
}
