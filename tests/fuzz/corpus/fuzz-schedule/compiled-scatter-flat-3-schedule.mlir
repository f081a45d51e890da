coll.schedule @scatter_flat scatter ranks 3 root 0 algorithm "flat" {
  %0 = coll.input rank 0 chunk 0
  coll.output %0 rank 0 chunk 0
  %1 = coll.input rank 0 chunk 1
  %2 = coll.input rank 0 chunk 2
  %3 = coll.copy %1 to rank 1 {step = 1 : i64}
  coll.output %3 rank 1 chunk 0
  %4 = coll.copy %2 to rank 2 {step = 2 : i64}
  coll.output %4 rank 2 chunk 0
}
