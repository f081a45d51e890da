coll.schedule @allreduce_recursive_doubling allreduce ranks 4 op max algorithm "recursive-doubling" {
  %0 = coll.input rank 0 chunk 0
  %1 = coll.input rank 1 chunk 0
  %2 = coll.input rank 2 chunk 0
  %3 = coll.input rank 3 chunk 0
  %4 = coll.copy %0 to rank 1 {step = 1 : i64}
  %5 = coll.copy %1 to rank 0 {step = 1 : i64}
  %6 = coll.copy %2 to rank 3 {step = 1 : i64}
  %7 = coll.copy %3 to rank 2 {step = 1 : i64}
  %8 = coll.reduce %0, %5 at rank 0 {step = 1 : i64}
  %9 = coll.reduce %4, %1 at rank 1 {step = 1 : i64}
  %10 = coll.reduce %2, %7 at rank 2 {step = 1 : i64}
  %11 = coll.reduce %6, %3 at rank 3 {step = 1 : i64}
  %12 = coll.copy %8 to rank 2 {step = 2 : i64}
  %13 = coll.copy %9 to rank 3 {step = 2 : i64}
  %14 = coll.copy %10 to rank 0 {step = 2 : i64}
  %15 = coll.copy %11 to rank 1 {step = 2 : i64}
  %16 = coll.reduce %8, %14 at rank 0 {step = 2 : i64}
  %17 = coll.reduce %9, %15 at rank 1 {step = 2 : i64}
  %18 = coll.reduce %12, %10 at rank 2 {step = 2 : i64}
  %19 = coll.reduce %13, %11 at rank 3 {step = 2 : i64}
  coll.output %16 rank 0 chunk 0
  coll.output %17 rank 1 chunk 0
  coll.output %18 rank 2 chunk 0
  coll.output %19 rank 3 chunk 0
}
