coll.schedule @allreduce_ring allreduce ranks 4 chunks 4 op sum algorithm "ring" {
  %0 = coll.input rank 1 chunk 0
  %1 = coll.input rank 2 chunk 0
  %2 = coll.input rank 3 chunk 0
  %3 = coll.input rank 0 chunk 0
  %4 = coll.input rank 2 chunk 1
  %5 = coll.input rank 3 chunk 1
  %6 = coll.input rank 0 chunk 1
  %7 = coll.input rank 1 chunk 1
  %8 = coll.input rank 3 chunk 2
  %9 = coll.input rank 0 chunk 2
  %10 = coll.input rank 1 chunk 2
  %11 = coll.input rank 2 chunk 2
  %12 = coll.input rank 0 chunk 3
  %13 = coll.input rank 1 chunk 3
  %14 = coll.input rank 2 chunk 3
  %15 = coll.input rank 3 chunk 3
  %16 = coll.copy %0 to rank 2 {step = 1 : i64}
  %17 = coll.copy %4 to rank 3 {step = 1 : i64}
  %18 = coll.copy %8 to rank 0 {step = 1 : i64}
  %19 = coll.copy %12 to rank 1 {step = 1 : i64}
  %20 = coll.reduce_send %16, %1 at rank 2 to rank 3 {step = 2 : i64}
  %21 = coll.reduce_send %17, %5 at rank 3 to rank 0 {step = 2 : i64}
  %22 = coll.reduce_send %18, %9 at rank 0 to rank 1 {step = 2 : i64}
  %23 = coll.reduce_send %19, %13 at rank 1 to rank 2 {step = 2 : i64}
  %24 = coll.reduce_send %20, %2 at rank 3 to rank 0 {step = 3 : i64}
  %25 = coll.reduce %24, %3 at rank 0 {step = 3 : i64}
  coll.output %25 rank 0 chunk 0
  %26 = coll.reduce_send %21, %6 at rank 0 to rank 1 {step = 3 : i64}
  %27 = coll.reduce %26, %7 at rank 1 {step = 3 : i64}
  coll.output %27 rank 1 chunk 1
  %28 = coll.reduce_send %22, %10 at rank 1 to rank 2 {step = 3 : i64}
  %29 = coll.reduce %28, %11 at rank 2 {step = 3 : i64}
  coll.output %29 rank 2 chunk 2
  %30 = coll.reduce_send %23, %14 at rank 2 to rank 3 {step = 3 : i64}
  %31 = coll.reduce %30, %15 at rank 3 {step = 3 : i64}
  coll.output %31 rank 3 chunk 3
  %32 = coll.copy %25 to rank 1 {step = 4 : i64}
  coll.output %32 rank 1 chunk 0
  %33 = coll.copy %27 to rank 2 {step = 4 : i64}
  coll.output %33 rank 2 chunk 1
  %34 = coll.copy %29 to rank 3 {step = 4 : i64}
  coll.output %34 rank 3 chunk 2
  %35 = coll.copy %31 to rank 0 {step = 4 : i64}
  coll.output %35 rank 0 chunk 3
  %36 = coll.copy %32 to rank 2 {step = 5 : i64}
  coll.output %36 rank 2 chunk 0
  %37 = coll.copy %33 to rank 3 {step = 5 : i64}
  coll.output %37 rank 3 chunk 1
  %38 = coll.copy %34 to rank 0 {step = 5 : i64}
  coll.output %38 rank 0 chunk 2
  %39 = coll.copy %35 to rank 1 {step = 5 : i64}
  coll.output %39 rank 1 chunk 3
  %40 = coll.copy %36 to rank 3 {step = 6 : i64}
  coll.output %40 rank 3 chunk 0
  %41 = coll.copy %37 to rank 0 {step = 6 : i64}
  coll.output %41 rank 0 chunk 1
  %42 = coll.copy %38 to rank 1 {step = 6 : i64}
  coll.output %42 rank 1 chunk 2
  %43 = coll.copy %39 to rank 2 {step = 6 : i64}
  coll.output %43 rank 2 chunk 3
}
