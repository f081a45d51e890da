coll.program @serial reduce ranks 2 op sum root 0 units 1 scratch 3 {
  coll.rank 0 {
    coll.recv recv 1 id 0 -> tmp[0:1]
    coll.local_reduce in[0:1], tmp[0:1] -> out[0:1]
    coll.recv recv 1 id 1 -> tmp[1:2]
    coll.local_reduce out[0:1], tmp[1:2] -> out[0:1]
    coll.recv recv 1 id 2 -> tmp[2:3]
    coll.local_reduce out[0:1], tmp[2:3] -> out[0:1]
  }
  coll.rank 1 {
    coll.send in[0:1] -> send 0 id 0
    coll.send in[0:1] -> send 0 id 1
    coll.send in[0:1] -> send 0 id 2
  }
}

coll.program @overlap allreduce ranks 2 op sum units 2 scratch 6 {
  coll.rank 0 {
    coll.recv recv 1 id 0 -> tmp[2:4]
    coll.recv recv 1 id 1 -> tmp[4:5]
    coll.local_reduce in[0:1], tmp[2:3], tmp[4:5] -> out[0:1]
    coll.local_copy tmp[3:4] -> out[1:2]
  }
  coll.rank 1 {
    coll.send in[0:2] -> send 0 id 0
    coll.send in[0:1] -> send 0 id 1
    coll.local_copy in[0:2] -> out[0:2]
  }
}
