coll.program @allreduce_two_shot allreduce ranks 4 chunks 4 op sum algorithm "two-shot" units 4 scratch 8 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[1:2] -> send 1 id 3 {step = 1 : i64}
    coll.recv recv 3 id 2 -> tmp[0:1] {step = 1 : i64}
    coll.send in[2:3] -> send 2 id 6 {step = 2 : i64}
    coll.recv recv 2 id 1 -> tmp[4:5] {step = 2 : i64}
    coll.send in[3:4] -> send 3 id 9 {step = 3 : i64}
    coll.recv_reduce_send in[0:1], recv 1 id 0, tmp[4:5], tmp[0:1] -> out[0:1], send 1 id 12 {step = 3 : i64}
    coll.recv recv 3 id 15 -> out[3:4] {step = 4 : i64}
    coll.send out[0:1] -> send 2 id 16 {step = 5 : i64}
    coll.recv recv 2 id 18 -> out[2:3] {step = 5 : i64}
    coll.send out[0:1] -> send 3 id 20 {step = 6 : i64}
    coll.recv recv 1 id 21 -> out[1:2] {step = 6 : i64}
  }
  coll.rank 1 {
    coll.send in[2:3] -> send 2 id 7 {step = 1 : i64}
    coll.recv recv 0 id 3 -> tmp[1:2] {step = 1 : i64}
    coll.send in[3:4] -> send 3 id 10 {step = 2 : i64}
    coll.recv recv 3 id 5 -> tmp[5:6] {step = 2 : i64}
    coll.send in[0:1] -> send 0 id 0 {step = 3 : i64}
    coll.recv_reduce_send tmp[1:2], in[1:2], recv 2 id 4, tmp[5:6] -> out[1:2], send 2 id 13 {step = 3 : i64}
    coll.recv recv 0 id 12 -> out[0:1] {step = 4 : i64}
    coll.send out[1:2] -> send 3 id 17 {step = 5 : i64}
    coll.recv recv 3 id 19 -> out[3:4] {step = 5 : i64}
    coll.send out[1:2] -> send 0 id 21 {step = 6 : i64}
    coll.recv recv 2 id 22 -> out[2:3] {step = 6 : i64}
  }
  coll.rank 2 {
    coll.send in[3:4] -> send 3 id 11 {step = 1 : i64}
    coll.recv recv 1 id 7 -> tmp[2:3] {step = 1 : i64}
    coll.send in[0:1] -> send 0 id 1 {step = 2 : i64}
    coll.recv recv 0 id 6 -> tmp[6:7] {step = 2 : i64}
    coll.send in[1:2] -> send 1 id 4 {step = 3 : i64}
    coll.recv_reduce_send tmp[6:7], tmp[2:3], in[2:3], recv 3 id 8 -> out[2:3], send 3 id 14 {step = 3 : i64}
    coll.recv recv 1 id 13 -> out[1:2] {step = 4 : i64}
    coll.send out[2:3] -> send 0 id 18 {step = 5 : i64}
    coll.recv recv 0 id 16 -> out[0:1] {step = 5 : i64}
    coll.send out[2:3] -> send 1 id 22 {step = 6 : i64}
    coll.recv recv 3 id 23 -> out[3:4] {step = 6 : i64}
  }
  coll.rank 3 {
    coll.send in[0:1] -> send 0 id 2 {step = 1 : i64}
    coll.recv recv 2 id 11 -> tmp[3:4] {step = 1 : i64}
    coll.send in[1:2] -> send 1 id 5 {step = 2 : i64}
    coll.recv recv 1 id 10 -> tmp[7:8] {step = 2 : i64}
    coll.send in[2:3] -> send 2 id 8 {step = 3 : i64}
    coll.recv_reduce_send recv 0 id 9, tmp[7:8], tmp[3:4], in[3:4] -> out[3:4], send 0 id 15 {step = 3 : i64}
    coll.recv recv 2 id 14 -> out[2:3] {step = 4 : i64}
    coll.send out[3:4] -> send 1 id 19 {step = 5 : i64}
    coll.recv recv 1 id 17 -> out[1:2] {step = 5 : i64}
    coll.send out[3:4] -> send 2 id 23 {step = 6 : i64}
    coll.recv recv 0 id 20 -> out[0:1] {step = 6 : i64}
  }
}
