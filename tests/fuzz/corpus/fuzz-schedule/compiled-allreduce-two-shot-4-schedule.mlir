coll.schedule @allreduce_two_shot allreduce ranks 4 chunks 4 op sum algorithm "two-shot" remote_reads {
  %0 = coll.input rank 0 chunk 0
  %1 = coll.input rank 1 chunk 0
  %2 = coll.input rank 2 chunk 0
  %3 = coll.input rank 3 chunk 0
  %4 = coll.input rank 0 chunk 1
  %5 = coll.input rank 1 chunk 1
  %6 = coll.input rank 2 chunk 1
  %7 = coll.input rank 3 chunk 1
  %8 = coll.input rank 0 chunk 2
  %9 = coll.input rank 1 chunk 2
  %10 = coll.input rank 2 chunk 2
  %11 = coll.input rank 3 chunk 2
  %12 = coll.input rank 0 chunk 3
  %13 = coll.input rank 1 chunk 3
  %14 = coll.input rank 2 chunk 3
  %15 = coll.input rank 3 chunk 3
  %16 = coll.reduce %0, %1, %2, %3 at rank 0 {step = 3 : i64}
  coll.output %16 rank 0 chunk 0
  %17 = coll.reduce %4, %5, %6, %7 at rank 1 {step = 3 : i64}
  coll.output %17 rank 1 chunk 1
  %18 = coll.reduce %8, %9, %10, %11 at rank 2 {step = 3 : i64}
  coll.output %18 rank 2 chunk 2
  %19 = coll.reduce %12, %13, %14, %15 at rank 3 {step = 3 : i64}
  coll.output %19 rank 3 chunk 3
  %20 = coll.copy %16 to rank 1 {step = 4 : i64}
  coll.output %20 rank 1 chunk 0
  %21 = coll.copy %17 to rank 2 {step = 4 : i64}
  coll.output %21 rank 2 chunk 1
  %22 = coll.copy %18 to rank 3 {step = 4 : i64}
  coll.output %22 rank 3 chunk 2
  %23 = coll.copy %19 to rank 0 {step = 4 : i64}
  coll.output %23 rank 0 chunk 3
  %24 = coll.copy %16 to rank 2 {step = 5 : i64}
  coll.output %24 rank 2 chunk 0
  %25 = coll.copy %17 to rank 3 {step = 5 : i64}
  coll.output %25 rank 3 chunk 1
  %26 = coll.copy %18 to rank 0 {step = 5 : i64}
  coll.output %26 rank 0 chunk 2
  %27 = coll.copy %19 to rank 1 {step = 5 : i64}
  coll.output %27 rank 1 chunk 3
  %28 = coll.copy %16 to rank 3 {step = 6 : i64}
  coll.output %28 rank 3 chunk 0
  %29 = coll.copy %17 to rank 0 {step = 6 : i64}
  coll.output %29 rank 0 chunk 1
  %30 = coll.copy %18 to rank 1 {step = 6 : i64}
  coll.output %30 rank 1 chunk 2
  %31 = coll.copy %19 to rank 2 {step = 6 : i64}
  coll.output %31 rank 2 chunk 3
}
