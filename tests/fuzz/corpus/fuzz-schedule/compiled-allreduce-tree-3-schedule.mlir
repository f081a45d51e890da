coll.schedule @allreduce_binomial_tree allreduce ranks 3 op sum algorithm "binomial-tree" {
  %0 = coll.input rank 2 chunk 0
  %1 = coll.input rank 1 chunk 0
  %2 = coll.input rank 0 chunk 0
  %3 = coll.copy %0 to rank 0 {step = 1 : i64}
  %4 = coll.copy %1 to rank 0 {step = 2 : i64}
  %5 = coll.reduce %2, %4, %3 at rank 0 {step = 2 : i64}
  coll.output %5 rank 0 chunk 0
  %6 = coll.copy %5 to rank 1 {step = 3 : i64}
  coll.output %6 rank 1 chunk 0
  %7 = coll.copy %5 to rank 2 {step = 4 : i64}
  coll.output %7 rank 2 chunk 0
}
