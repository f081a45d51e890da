coll.schedule @gather_flat gather ranks 3 root 1 algorithm "flat" {
  %0 = coll.input rank 1 chunk 0
  coll.output %0 rank 1 chunk 1
  %1 = coll.input rank 2 chunk 0
  %2 = coll.input rank 0 chunk 0
  %3 = coll.copy %1 to rank 1 {step = 1 : i64}
  coll.output %3 rank 1 chunk 2
  %4 = coll.copy %2 to rank 1 {step = 2 : i64}
  coll.output %4 rank 1 chunk 0
}
