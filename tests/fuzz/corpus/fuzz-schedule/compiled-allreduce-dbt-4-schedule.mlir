coll.schedule @allreduce_double_binary_tree allreduce ranks 4 chunks 4 slices 2 op sum algorithm "double-binary-tree" {
  %0 = coll.input rank 3 chunk 0 slice 0
  %1 = coll.input rank 1 chunk 0 slice 0
  %2 = coll.input rank 2 chunk 0 slice 0
  %3 = coll.input rank 0 chunk 0 slice 0
  %4 = coll.input rank 3 chunk 1 slice 0
  %5 = coll.input rank 1 chunk 1 slice 0
  %6 = coll.input rank 2 chunk 1 slice 0
  %7 = coll.input rank 0 chunk 1 slice 0
  %8 = coll.input rank 3 chunk 2 slice 0
  %9 = coll.input rank 1 chunk 2 slice 0
  %10 = coll.input rank 2 chunk 2 slice 0
  %11 = coll.input rank 0 chunk 2 slice 0
  %12 = coll.input rank 3 chunk 3 slice 0
  %13 = coll.input rank 1 chunk 3 slice 0
  %14 = coll.input rank 2 chunk 3 slice 0
  %15 = coll.input rank 0 chunk 3 slice 0
  %16 = coll.input rank 2 chunk 0 slice 1
  %17 = coll.input rank 0 chunk 0 slice 1
  %18 = coll.input rank 1 chunk 0 slice 1
  %19 = coll.input rank 3 chunk 0 slice 1
  %20 = coll.input rank 2 chunk 1 slice 1
  %21 = coll.input rank 0 chunk 1 slice 1
  %22 = coll.input rank 1 chunk 1 slice 1
  %23 = coll.input rank 3 chunk 1 slice 1
  %24 = coll.input rank 2 chunk 2 slice 1
  %25 = coll.input rank 0 chunk 2 slice 1
  %26 = coll.input rank 1 chunk 2 slice 1
  %27 = coll.input rank 3 chunk 2 slice 1
  %28 = coll.input rank 2 chunk 3 slice 1
  %29 = coll.input rank 0 chunk 3 slice 1
  %30 = coll.input rank 1 chunk 3 slice 1
  %31 = coll.input rank 3 chunk 3 slice 1
  %32 = coll.copy %0 to rank 2 {channel = 0 : i64, step = 1 : i64}
  %33 = coll.copy %16 to rank 1 {channel = 1 : i64, step = 1 : i64}
  %34 = coll.copy %1 to rank 2 {channel = 0 : i64, step = 2 : i64}
  %35 = coll.copy %17 to rank 1 {channel = 1 : i64, step = 2 : i64}
  %36 = coll.copy %4 to rank 2 {channel = 0 : i64, step = 3 : i64}
  %37 = coll.reduce_send %18, %35, %33 at rank 1 to rank 3 {channel = 1 : i64, step = 3 : i64}
  %38 = coll.reduce %19, %37 at rank 3 {channel = 1 : i64, step = 3 : i64}
  coll.output %38 rank 3 chunk 0 slice 1
  %39 = coll.copy %20 to rank 1 {channel = 1 : i64, step = 3 : i64}
  %40 = coll.reduce_send %2, %34, %32 at rank 2 to rank 0 {channel = 0 : i64, step = 4 : i64}
  %41 = coll.reduce %3, %40 at rank 0 {channel = 0 : i64, step = 4 : i64}
  coll.output %41 rank 0 chunk 0 slice 0
  %42 = coll.copy %5 to rank 2 {channel = 0 : i64, step = 4 : i64}
  %43 = coll.copy %21 to rank 1 {channel = 1 : i64, step = 4 : i64}
  %44 = coll.copy %8 to rank 2 {channel = 0 : i64, step = 5 : i64}
  %45 = coll.reduce_send %22, %43, %39 at rank 1 to rank 3 {channel = 1 : i64, step = 5 : i64}
  %46 = coll.reduce %23, %45 at rank 3 {channel = 1 : i64, step = 5 : i64}
  coll.output %46 rank 3 chunk 1 slice 1
  %47 = coll.copy %24 to rank 1 {channel = 1 : i64, step = 5 : i64}
  %48 = coll.reduce_send %6, %42, %36 at rank 2 to rank 0 {channel = 0 : i64, step = 6 : i64}
  %49 = coll.reduce %7, %48 at rank 0 {channel = 0 : i64, step = 6 : i64}
  coll.output %49 rank 0 chunk 1 slice 0
  %50 = coll.copy %9 to rank 2 {channel = 0 : i64, step = 6 : i64}
  %51 = coll.copy %25 to rank 1 {channel = 1 : i64, step = 6 : i64}
  %52 = coll.copy %12 to rank 2 {channel = 0 : i64, step = 7 : i64}
  %53 = coll.reduce_send %26, %51, %47 at rank 1 to rank 3 {channel = 1 : i64, step = 7 : i64}
  %54 = coll.reduce %27, %53 at rank 3 {channel = 1 : i64, step = 7 : i64}
  coll.output %54 rank 3 chunk 2 slice 1
  %55 = coll.copy %28 to rank 1 {channel = 1 : i64, step = 7 : i64}
  %56 = coll.reduce_send %10, %50, %44 at rank 2 to rank 0 {channel = 0 : i64, step = 8 : i64}
  %57 = coll.reduce %11, %56 at rank 0 {channel = 0 : i64, step = 8 : i64}
  coll.output %57 rank 0 chunk 2 slice 0
  %58 = coll.copy %13 to rank 2 {channel = 0 : i64, step = 8 : i64}
  %59 = coll.copy %29 to rank 1 {channel = 1 : i64, step = 8 : i64}
  %60 = coll.copy %41 to rank 2 {channel = 0 : i64, step = 9 : i64}
  coll.output %60 rank 2 chunk 0 slice 0
  %61 = coll.reduce_send %14, %58, %52 at rank 2 to rank 0 {channel = 0 : i64, step = 9 : i64}
  %62 = coll.reduce %15, %61 at rank 0 {channel = 0 : i64, step = 9 : i64}
  coll.output %62 rank 0 chunk 3 slice 0
  %63 = coll.copy %38 to rank 1 {channel = 1 : i64, step = 9 : i64}
  coll.output %63 rank 1 chunk 0 slice 1
  %64 = coll.reduce_send %30, %59, %55 at rank 1 to rank 3 {channel = 1 : i64, step = 9 : i64}
  %65 = coll.reduce %31, %64 at rank 3 {channel = 1 : i64, step = 9 : i64}
  coll.output %65 rank 3 chunk 3 slice 1
  %66 = coll.copy %60 to rank 3 {channel = 0 : i64, step = 10 : i64}
  coll.output %66 rank 3 chunk 0 slice 0
  %67 = coll.copy %49 to rank 2 {channel = 0 : i64, step = 10 : i64}
  coll.output %67 rank 2 chunk 1 slice 0
  %68 = coll.copy %63 to rank 0 {channel = 1 : i64, step = 10 : i64}
  coll.output %68 rank 0 chunk 0 slice 1
  %69 = coll.copy %46 to rank 1 {channel = 1 : i64, step = 10 : i64}
  coll.output %69 rank 1 chunk 1 slice 1
  %70 = coll.copy %67 to rank 3 {channel = 0 : i64, step = 11 : i64}
  coll.output %70 rank 3 chunk 1 slice 0
  %71 = coll.copy %57 to rank 2 {channel = 0 : i64, step = 11 : i64}
  coll.output %71 rank 2 chunk 2 slice 0
  %72 = coll.copy %69 to rank 0 {channel = 1 : i64, step = 11 : i64}
  coll.output %72 rank 0 chunk 1 slice 1
  %73 = coll.copy %54 to rank 1 {channel = 1 : i64, step = 11 : i64}
  coll.output %73 rank 1 chunk 2 slice 1
  %74 = coll.copy %60 to rank 1 {channel = 0 : i64, step = 12 : i64}
  coll.output %74 rank 1 chunk 0 slice 0
  %75 = coll.copy %63 to rank 2 {channel = 1 : i64, step = 12 : i64}
  coll.output %75 rank 2 chunk 0 slice 1
  %76 = coll.copy %71 to rank 3 {channel = 0 : i64, step = 13 : i64}
  coll.output %76 rank 3 chunk 2 slice 0
  %77 = coll.copy %62 to rank 2 {channel = 0 : i64, step = 13 : i64}
  coll.output %77 rank 2 chunk 3 slice 0
  %78 = coll.copy %73 to rank 0 {channel = 1 : i64, step = 13 : i64}
  coll.output %78 rank 0 chunk 2 slice 1
  %79 = coll.copy %65 to rank 1 {channel = 1 : i64, step = 13 : i64}
  coll.output %79 rank 1 chunk 3 slice 1
  %80 = coll.copy %67 to rank 1 {channel = 0 : i64, step = 14 : i64}
  coll.output %80 rank 1 chunk 1 slice 0
  %81 = coll.copy %69 to rank 2 {channel = 1 : i64, step = 14 : i64}
  coll.output %81 rank 2 chunk 1 slice 1
  %82 = coll.copy %71 to rank 1 {channel = 0 : i64, step = 15 : i64}
  coll.output %82 rank 1 chunk 2 slice 0
  %83 = coll.copy %73 to rank 2 {channel = 1 : i64, step = 15 : i64}
  coll.output %83 rank 2 chunk 2 slice 1
  %84 = coll.copy %77 to rank 1 {channel = 0 : i64, step = 16 : i64}
  coll.output %84 rank 1 chunk 3 slice 0
  %85 = coll.copy %79 to rank 0 {channel = 1 : i64, step = 16 : i64}
  coll.output %85 rank 0 chunk 3 slice 1
  %86 = coll.copy %77 to rank 3 {channel = 0 : i64, step = 17 : i64}
  coll.output %86 rank 3 chunk 3 slice 0
  %87 = coll.copy %79 to rank 2 {channel = 1 : i64, step = 17 : i64}
  coll.output %87 rank 2 chunk 3 slice 1
}
