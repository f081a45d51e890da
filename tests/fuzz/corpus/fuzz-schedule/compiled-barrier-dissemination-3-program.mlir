coll.program @barrier_dissemination barrier ranks 3 algorithm "dissemination" units 0 scratch 0 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send -> send 1 id 0 {step = 1 : i64}
    coll.recv recv 2 id 2 -> {step = 1 : i64}
    coll.send -> send 2 id 3 {step = 2 : i64}
    coll.recv recv 1 id 4 -> {step = 2 : i64}
  }
  coll.rank 1 {
    coll.send -> send 2 id 1 {step = 1 : i64}
    coll.recv recv 0 id 0 -> {step = 1 : i64}
    coll.send -> send 0 id 4 {step = 2 : i64}
    coll.recv recv 2 id 5 -> {step = 2 : i64}
  }
  coll.rank 2 {
    coll.send -> send 0 id 2 {step = 1 : i64}
    coll.recv recv 1 id 1 -> {step = 1 : i64}
    coll.send -> send 1 id 5 {step = 2 : i64}
    coll.recv recv 0 id 3 -> {step = 2 : i64}
  }
}
