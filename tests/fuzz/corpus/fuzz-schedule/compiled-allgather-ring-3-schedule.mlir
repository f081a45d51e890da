coll.schedule @allgather_ring allgather ranks 3 algorithm "ring" {
  %0 = coll.input rank 0 chunk 0
  coll.output %0 rank 0 chunk 0
  %1 = coll.input rank 1 chunk 0
  coll.output %1 rank 1 chunk 1
  %2 = coll.input rank 2 chunk 0
  coll.output %2 rank 2 chunk 2
  %3 = coll.copy %0 to rank 1 {step = 1 : i64}
  coll.output %3 rank 1 chunk 0
  %4 = coll.copy %1 to rank 2 {step = 1 : i64}
  coll.output %4 rank 2 chunk 1
  %5 = coll.copy %2 to rank 0 {step = 1 : i64}
  coll.output %5 rank 0 chunk 2
  %6 = coll.copy %3 to rank 2 {step = 2 : i64}
  coll.output %6 rank 2 chunk 0
  %7 = coll.copy %4 to rank 0 {step = 2 : i64}
  coll.output %7 rank 0 chunk 1
  %8 = coll.copy %5 to rank 1 {step = 2 : i64}
  coll.output %8 rank 1 chunk 2
}
