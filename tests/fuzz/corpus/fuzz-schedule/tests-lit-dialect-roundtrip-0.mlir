coll.collective @ar allreduce ranks 8 chunks 8 op sum algorithm "ring"
coll.collective @bc broadcast ranks 4 slices 2 root 3
coll.collective @ag allgather ranks 4
coll.collective @bar barrier ranks 3

coll.schedule @level2 reduce ranks 3 op max root 1 remote_reads {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0 {step = 0}
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1 {step = 1, channel = 1}
  %d:2 = coll.dup %x to ranks [0, 2]
  %s = coll.reduce_send %d#1, %c at rank 2 to rank 1
  %r = coll.reduce %s, %b at rank 1
  coll.output %r rank 1 chunk 0
}

coll.schedule @sliced allgather ranks 2 slices 2 {
  %a = coll.input rank 0 chunk 0 slice 1
  %b = coll.copy %a to rank 1
  coll.output %b rank 1 chunk 0 slice 1
}

coll.program @level3 allreduce ranks 2 chunks 2 op sum units 2 scratch 1 {
  coll.rank 0 {
    coll.send in[1:2] -> send 1 id 0
    coll.recv_reduce recv 1 id 1, in[0:1] -> out[0:1]
    coll.dup_send out[0:1] -> tmp[0:1], send 1 id 2 {step = 2}
    coll.recv recv 1 id 3 -> out[1:2]
    coll.recv recv 1 id 4 -> tmp[0:1]
  }
  coll.rank 1 {
    coll.local_copy in[0:1] -> tmp[0:1]
    coll.send tmp[0:1] -> send 0 id 1
    coll.recv_reduce_send in[1:2], recv 0 id 0 -> send 0 id 3
    coll.recv_copy_send recv 0 id 2 -> out[0:1], send 0 id 4
    coll.local_reduce in[1:2], out[0:1] -> out[1:2]
  }
}

coll.program @tokens barrier ranks 2 units 0 scratch 0 {
  coll.rank 0 {
    coll.send -> send 1 id 0
    coll.recv recv 1 id 1 ->
  }
  coll.rank 1 {
    coll.recv_copy_send recv 0 id 0 -> send 0 id 1
  }
}
