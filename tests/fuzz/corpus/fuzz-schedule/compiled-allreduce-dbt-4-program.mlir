coll.program @allreduce_double_binary_tree allreduce ranks 4 chunks 4 slices 2 op sum algorithm "double-binary-tree" units 8 scratch 13 attributes {coll.inplace_safe} {
  coll.rank 0 {
    coll.send in[1:2] -> send 1 id 3 {channel = 1 : i64, step = 2 : i64}
    coll.send in[3:4] -> send 1 id 9 {channel = 1 : i64, step = 4 : i64}
    coll.recv_reduce in[0:1], recv 2 id 7 -> out[0:1] {step = 4 : i64}
    coll.send in[5:6] -> send 1 id 15 {channel = 1 : i64, step = 6 : i64}
    coll.recv_reduce in[2:3], recv 2 id 13 -> out[2:3] {step = 6 : i64}
    coll.send in[7:8] -> send 1 id 21 {channel = 1 : i64, step = 8 : i64}
    coll.recv_reduce in[4:5], recv 2 id 19 -> out[4:5] {step = 8 : i64}
    coll.send out[0:1] -> send 2 id 22 {step = 9 : i64}
    coll.recv_reduce in[6:7], recv 2 id 23 -> out[6:7] {step = 9 : i64}
    coll.send out[2:3] -> send 2 id 27 {step = 10 : i64}
    coll.recv recv 1 id 28 -> out[1:2] {channel = 1 : i64, step = 10 : i64}
    coll.send out[4:5] -> send 2 id 31 {step = 11 : i64}
    coll.recv recv 1 id 32 -> out[3:4] {channel = 1 : i64, step = 11 : i64}
    coll.send out[6:7] -> send 2 id 37 {step = 13 : i64}
    coll.recv recv 1 id 38 -> out[5:6] {channel = 1 : i64, step = 13 : i64}
    coll.recv recv 1 id 45 -> out[7:8] {channel = 1 : i64, step = 16 : i64}
  }
  coll.rank 1 {
    coll.recv recv 2 id 1 -> tmp[1:2] {channel = 1 : i64, step = 1 : i64}
    coll.send in[0:1] -> send 2 id 2 {step = 2 : i64}
    coll.recv_reduce_send in[1:2], recv 0 id 3, tmp[1:2] -> send 3 id 5 {channel = 1 : i64, step = 2 : i64}
    coll.recv recv 2 id 6 -> tmp[3:4] {channel = 1 : i64, step = 3 : i64}
    coll.send in[2:3] -> send 2 id 8 {step = 4 : i64}
    coll.recv_reduce_send in[3:4], recv 0 id 9, tmp[3:4] -> send 3 id 11 {channel = 1 : i64, step = 4 : i64}
    coll.recv recv 2 id 12 -> tmp[5:6] {channel = 1 : i64, step = 5 : i64}
    coll.send in[4:5] -> send 2 id 14 {step = 6 : i64}
    coll.recv_reduce_send in[5:6], recv 0 id 15, tmp[5:6] -> send 3 id 17 {channel = 1 : i64, step = 6 : i64}
    coll.recv recv 2 id 18 -> tmp[7:8] {channel = 1 : i64, step = 7 : i64}
    coll.send in[6:7] -> send 2 id 20 {step = 8 : i64}
    coll.recv_reduce_send in[7:8], recv 0 id 21, tmp[7:8] -> send 3 id 25 {channel = 1 : i64, step = 8 : i64}
    coll.recv_copy_send recv 3 id 24 -> out[1:2], send 0 id 28 {channel = 1 : i64, step = 9 : i64}
    coll.recv_copy_send recv 3 id 29 -> out[3:4], send 0 id 32 {channel = 1 : i64, step = 10 : i64}
    coll.recv recv 3 id 33 -> out[5:6] {channel = 1 : i64, step = 11 : i64}
    coll.send out[1:2] -> send 2 id 35 {channel = 1 : i64, step = 12 : i64}
    coll.recv recv 2 id 34 -> out[0:1] {step = 12 : i64}
    coll.send out[5:6] -> send 0 id 38 {channel = 1 : i64, step = 13 : i64}
    coll.recv recv 3 id 39 -> out[7:8] {channel = 1 : i64, step = 13 : i64}
    coll.send out[3:4] -> send 2 id 41 {channel = 1 : i64, step = 14 : i64}
    coll.recv recv 2 id 40 -> out[2:3] {step = 14 : i64}
    coll.send out[5:6] -> send 2 id 43 {channel = 1 : i64, step = 15 : i64}
    coll.recv recv 2 id 42 -> out[4:5] {step = 15 : i64}
    coll.send out[7:8] -> send 0 id 45 {channel = 1 : i64, step = 16 : i64}
    coll.recv recv 2 id 44 -> out[6:7] {step = 16 : i64}
    coll.send out[7:8] -> send 2 id 47 {channel = 1 : i64, step = 17 : i64}
  }
  coll.rank 2 {
    coll.send in[1:2] -> send 1 id 1 {channel = 1 : i64, step = 1 : i64}
    coll.recv recv 3 id 0 -> tmp[0:1] {step = 1 : i64}
    coll.recv_reduce in[0:1], recv 1 id 2, tmp[0:1] -> tmp[8:9] {step = 2 : i64}
    coll.send in[3:4] -> send 1 id 6 {channel = 1 : i64, step = 3 : i64}
    coll.recv recv 3 id 4 -> tmp[2:3] {step = 3 : i64}
    coll.send tmp[8:9] -> send 0 id 7 {step = 4 : i64}
    coll.recv_reduce in[2:3], recv 1 id 8, tmp[2:3] -> tmp[10:11] {step = 4 : i64}
    coll.send in[5:6] -> send 1 id 12 {channel = 1 : i64, step = 5 : i64}
    coll.recv recv 3 id 10 -> tmp[4:5] {step = 5 : i64}
    coll.send tmp[10:11] -> send 0 id 13 {step = 6 : i64}
    coll.recv_reduce in[4:5], recv 1 id 14, tmp[4:5] -> tmp[12:13] {step = 6 : i64}
    coll.send in[7:8] -> send 1 id 18 {channel = 1 : i64, step = 7 : i64}
    coll.recv recv 3 id 16 -> tmp[6:7] {step = 7 : i64}
    coll.send tmp[12:13] -> send 0 id 19 {step = 8 : i64}
    coll.recv_reduce_send in[6:7], recv 1 id 20, tmp[6:7] -> send 0 id 23 {step = 8 : i64}
    coll.recv_copy_send recv 0 id 22 -> out[0:1], send 3 id 26 {step = 9 : i64}
    coll.recv_copy_send recv 0 id 27 -> out[2:3], send 3 id 30 {step = 10 : i64}
    coll.recv recv 0 id 31 -> out[4:5] {step = 11 : i64}
    coll.send out[0:1] -> send 1 id 34 {step = 12 : i64}
    coll.recv recv 1 id 35 -> out[1:2] {channel = 1 : i64, step = 12 : i64}
    coll.send out[4:5] -> send 3 id 36 {step = 13 : i64}
    coll.recv recv 0 id 37 -> out[6:7] {step = 13 : i64}
    coll.send out[2:3] -> send 1 id 40 {step = 14 : i64}
    coll.recv recv 1 id 41 -> out[3:4] {channel = 1 : i64, step = 14 : i64}
    coll.send out[4:5] -> send 1 id 42 {step = 15 : i64}
    coll.recv recv 1 id 43 -> out[5:6] {channel = 1 : i64, step = 15 : i64}
    coll.send out[6:7] -> send 1 id 44 {step = 16 : i64}
    coll.send out[6:7] -> send 3 id 46 {step = 17 : i64}
    coll.recv recv 1 id 47 -> out[7:8] {channel = 1 : i64, step = 17 : i64}
  }
  coll.rank 3 {
    coll.send in[0:1] -> send 2 id 0 {step = 1 : i64}
    coll.send in[2:3] -> send 2 id 4 {step = 3 : i64}
    coll.recv_reduce in[1:2], recv 1 id 5 -> out[1:2] {channel = 1 : i64, step = 3 : i64}
    coll.send in[4:5] -> send 2 id 10 {step = 5 : i64}
    coll.recv_reduce in[3:4], recv 1 id 11 -> out[3:4] {channel = 1 : i64, step = 5 : i64}
    coll.send in[6:7] -> send 2 id 16 {step = 7 : i64}
    coll.recv_reduce in[5:6], recv 1 id 17 -> out[5:6] {channel = 1 : i64, step = 7 : i64}
    coll.send out[1:2] -> send 1 id 24 {channel = 1 : i64, step = 9 : i64}
    coll.recv_reduce in[7:8], recv 1 id 25 -> out[7:8] {channel = 1 : i64, step = 9 : i64}
    coll.send out[3:4] -> send 1 id 29 {channel = 1 : i64, step = 10 : i64}
    coll.recv recv 2 id 26 -> out[0:1] {step = 10 : i64}
    coll.send out[5:6] -> send 1 id 33 {channel = 1 : i64, step = 11 : i64}
    coll.recv recv 2 id 30 -> out[2:3] {step = 11 : i64}
    coll.send out[7:8] -> send 1 id 39 {channel = 1 : i64, step = 13 : i64}
    coll.recv recv 2 id 36 -> out[4:5] {step = 13 : i64}
    coll.recv recv 2 id 46 -> out[6:7] {step = 17 : i64}
  }
}
