coll.program @p allgather ranks 2 units 4 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:1] -> out[0:1]
    coll.local_copy in[1:2] -> out[1:2]
    coll.send in[0:1] -> send 1 id 0 {step = 1}
    coll.send in[1:2] -> send 1 id 1 {step = 1}
    coll.recv recv 1 id 2 -> out[2:3] {step = 1}
    coll.recv recv 1 id 3 -> out[3:4] {step = 1}
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> out[2:3]
    coll.local_copy in[1:2] -> out[3:4]
    coll.send in[0:1] -> send 0 id 2 {step = 1}
    coll.send in[1:2] -> send 0 id 3 {step = 1}
    coll.recv recv 0 id 0 -> out[0:1] {step = 1}
    coll.recv recv 0 id 1 -> out[1:2] {step = 1}
  }
}

coll.program @channels allgather ranks 2 units 4 scratch 0 {
  coll.rank 0 {
    coll.local_copy in[0:2] -> out[0:2]
    coll.send in[0:1] -> send 1 id 0 {step = 1}
    coll.send in[1:2] -> send 1 id 1 {step = 1, channel = 1}
    coll.recv recv 1 id 2 -> out[2:4] {step = 1}
  }
  coll.rank 1 {
    coll.local_copy in[0:2] -> out[2:4]
    coll.send in[0:2] -> send 0 id 2 {step = 1}
    coll.recv recv 0 id 0 -> out[0:1] {step = 1}
    coll.recv recv 0 id 1 -> out[1:2] {step = 1, channel = 1}
  }
}
