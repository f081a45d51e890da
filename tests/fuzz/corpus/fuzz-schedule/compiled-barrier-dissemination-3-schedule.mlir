coll.schedule @barrier_dissemination barrier ranks 3 algorithm "dissemination" {
  %0 = coll.input rank 0 chunk 0
  %1 = coll.input rank 1 chunk 0
  %2 = coll.input rank 2 chunk 0
  %3 = coll.copy %0 to rank 1 {step = 1 : i64}
  %4 = coll.copy %1 to rank 2 {step = 1 : i64}
  %5 = coll.copy %2 to rank 0 {step = 1 : i64}
  %6 = coll.reduce %0, %5 at rank 0 {step = 1 : i64}
  %7 = coll.reduce %1, %3 at rank 1 {step = 1 : i64}
  %8 = coll.reduce %2, %4 at rank 2 {step = 1 : i64}
  %9 = coll.copy %6 to rank 2 {step = 2 : i64}
  %10 = coll.copy %7 to rank 0 {step = 2 : i64}
  %11 = coll.copy %8 to rank 1 {step = 2 : i64}
  %12 = coll.reduce %6, %10 at rank 0 {step = 2 : i64}
  %13 = coll.reduce %7, %11 at rank 1 {step = 2 : i64}
  %14 = coll.reduce %8, %9 at rank 2 {step = 2 : i64}
  coll.output %12 rank 0 chunk 0
  coll.output %13 rank 1 chunk 0
  coll.output %14 rank 2 chunk 0
}
