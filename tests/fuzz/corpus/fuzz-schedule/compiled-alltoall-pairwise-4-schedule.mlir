coll.schedule @alltoall_pairwise alltoall ranks 4 algorithm "pairwise" {
  %0 = coll.input rank 0 chunk 0
  coll.output %0 rank 0 chunk 0
  %1 = coll.input rank 1 chunk 1
  coll.output %1 rank 1 chunk 1
  %2 = coll.input rank 2 chunk 2
  coll.output %2 rank 2 chunk 2
  %3 = coll.input rank 3 chunk 3
  coll.output %3 rank 3 chunk 3
  %4 = coll.input rank 0 chunk 1
  %5 = coll.input rank 1 chunk 0
  %6 = coll.input rank 2 chunk 3
  %7 = coll.input rank 3 chunk 2
  %8 = coll.input rank 0 chunk 2
  %9 = coll.input rank 1 chunk 3
  %10 = coll.input rank 2 chunk 0
  %11 = coll.input rank 3 chunk 1
  %12 = coll.input rank 0 chunk 3
  %13 = coll.input rank 1 chunk 2
  %14 = coll.input rank 2 chunk 1
  %15 = coll.input rank 3 chunk 0
  %16 = coll.copy %4 to rank 1 {step = 1 : i64}
  coll.output %16 rank 1 chunk 0
  %17 = coll.copy %5 to rank 0 {step = 1 : i64}
  coll.output %17 rank 0 chunk 1
  %18 = coll.copy %6 to rank 3 {step = 1 : i64}
  coll.output %18 rank 3 chunk 2
  %19 = coll.copy %7 to rank 2 {step = 1 : i64}
  coll.output %19 rank 2 chunk 3
  %20 = coll.copy %8 to rank 2 {step = 2 : i64}
  coll.output %20 rank 2 chunk 0
  %21 = coll.copy %9 to rank 3 {step = 2 : i64}
  coll.output %21 rank 3 chunk 1
  %22 = coll.copy %10 to rank 0 {step = 2 : i64}
  coll.output %22 rank 0 chunk 2
  %23 = coll.copy %11 to rank 1 {step = 2 : i64}
  coll.output %23 rank 1 chunk 3
  %24 = coll.copy %12 to rank 3 {step = 3 : i64}
  coll.output %24 rank 3 chunk 0
  %25 = coll.copy %13 to rank 2 {step = 3 : i64}
  coll.output %25 rank 2 chunk 1
  %26 = coll.copy %14 to rank 1 {step = 3 : i64}
  coll.output %26 rank 1 chunk 2
  %27 = coll.copy %15 to rank 0 {step = 3 : i64}
  coll.output %27 rank 0 chunk 3
}
