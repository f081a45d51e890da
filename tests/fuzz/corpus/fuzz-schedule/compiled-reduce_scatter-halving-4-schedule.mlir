coll.schedule @reduce_scatter_recursive_halving reduce_scatter ranks 4 op sum algorithm "recursive-halving" {
  %0 = coll.input rank 0 chunk 0
  %1 = coll.input rank 0 chunk 1
  %2 = coll.input rank 0 chunk 2
  %3 = coll.input rank 0 chunk 3
  %4 = coll.input rank 1 chunk 0
  %5 = coll.input rank 1 chunk 1
  %6 = coll.input rank 1 chunk 2
  %7 = coll.input rank 1 chunk 3
  %8 = coll.input rank 2 chunk 0
  %9 = coll.input rank 2 chunk 1
  %10 = coll.input rank 2 chunk 2
  %11 = coll.input rank 2 chunk 3
  %12 = coll.input rank 3 chunk 0
  %13 = coll.input rank 3 chunk 1
  %14 = coll.input rank 3 chunk 2
  %15 = coll.input rank 3 chunk 3
  %16 = coll.copy %2 to rank 2 {step = 1 : i64}
  %17 = coll.copy %3 to rank 2 {step = 1 : i64}
  %18 = coll.copy %6 to rank 3 {step = 1 : i64}
  %19 = coll.copy %7 to rank 3 {step = 1 : i64}
  %20 = coll.copy %8 to rank 0 {step = 1 : i64}
  %21 = coll.copy %9 to rank 0 {step = 1 : i64}
  %22 = coll.copy %12 to rank 1 {step = 1 : i64}
  %23 = coll.copy %13 to rank 1 {step = 1 : i64}
  %24 = coll.reduce_send %1, %21 at rank 0 to rank 1 {step = 2 : i64}
  %25 = coll.reduce_send %4, %22 at rank 1 to rank 0 {step = 2 : i64}
  %26 = coll.reduce_send %17, %11 at rank 2 to rank 3 {step = 2 : i64}
  %27 = coll.reduce_send %18, %14 at rank 3 to rank 2 {step = 2 : i64}
  %28 = coll.reduce %0, %20, %25 at rank 0 {step = 2 : i64}
  coll.output %28 rank 0 chunk 0
  %29 = coll.reduce %24, %5, %23 at rank 1 {step = 2 : i64}
  coll.output %29 rank 1 chunk 0
  %30 = coll.reduce %16, %10, %27 at rank 2 {step = 2 : i64}
  coll.output %30 rank 2 chunk 0
  %31 = coll.reduce %26, %19, %15 at rank 3 {step = 2 : i64}
  coll.output %31 rank 3 chunk 0
}
