// Each op verifier of the coll dialect rejects its bad inputs with a clear message.
// RUN: coll-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{allreduce needs a reduction op (op sum|prod|min|max)}}
coll.collective @a allreduce ranks 4

// -----

// expected-error @+1 {{broadcast does not reduce: remove 'op'}}
coll.collective @a broadcast ranks 4 op sum

// -----

// expected-error @+1 {{root 4 is out of range for 4 ranks}}
coll.collective @a broadcast ranks 4 root 4

// -----

// expected-error @+1 {{allgather has one chunk per rank: chunks must be 4 (got 2)}}
coll.collective @a allgather ranks 4 chunks 2

// -----

// expected-error @+1 {{barrier has one token per rank: chunks and slices must be 1}}
coll.collective @a barrier ranks 4 slices 2

// -----

// expected-error @+1 {{attribute 'ranks' failed to satisfy constraint}}
coll.collective @a allgather ranks 0

// -----

// expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind'}}
coll.collective @a 7 ranks 4

// -----

// expected-error @+1 {{[allreduce, allgather, reduce_scatter, alltoall, broadcast, reduce, gather, scatter, barrier]}}
coll.collective @a allsum ranks 4

// -----

coll.schedule @s allreduce ranks 4 chunks 4 op sum {
  // expected-error @+1 {{rank 4 is out of range: the collective has 4 ranks}}
  %a = coll.input rank 4 chunk 0
}

// -----

coll.schedule @s allreduce ranks 4 chunks 4 op sum {
  // expected-error @+1 {{input chunk 4 is out of range: rank 1 contributes 4 chunk(s)}}
  %a = coll.input rank 1 chunk 4
}

// -----

coll.schedule @s broadcast ranks 4 root 2 {
  // expected-error @+1 {{rank 1 has no input in a broadcast with root 2}}
  %a = coll.input rank 1 chunk 0
}

// -----

coll.schedule @s allgather ranks 2 slices 2 {
  // expected-error @+1 {{slice 2 is out of range: chunks have 2 slices}}
  %a = coll.input rank 1 chunk 0 slice 2
}

// -----

coll.schedule @s allgather ranks 2 {
  %a = coll.input rank 1 chunk 0
  // expected-error @+1 {{rank 9 is out of range: the collective has 2 ranks}}
  %b = coll.copy %a to rank 9
}

// -----

coll.schedule @s allreduce ranks 2 op sum {
  %a = coll.input rank 1 chunk 0
  // expected-error @+1 {{needs at least 2 operands (has 1)}}
  %b = coll.reduce %a at rank 1
}

// -----

coll.schedule @s allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 0 chunk 0
  // expected-error @+1 {{destination rank 2 is out of range: the collective has 2 ranks}}
  %c = coll.reduce_send %a, %b at rank 0 to rank 2
}

// -----

coll.schedule @s allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  // expected-error @+1 {{duplicates to at least 2 ranks (has 1); use coll.copy for one}}
  %b = coll.dup %a to ranks [1]
}

// -----

coll.schedule @s allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  // expected-error @+1 {{rank 3 is out of range: the collective has 3 ranks}}
  %b:2 = coll.dup %a to ranks [1, 3]
}

// -----

coll.schedule @s allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  // expected-error @+1 {{output chunk 3 is out of range: rank 0 receives 3 chunk(s)}}
  coll.output %a rank 0 chunk 3
}

// -----

coll.schedule @s reduce ranks 3 op sum root 0 {
  %a = coll.input rank 1 chunk 0
  // expected-error @+1 {{rank 1 has no output in a reduce with root 0}}
  coll.output %a rank 1 chunk 0
}

// -----

// expected-error @+1 {{'coll.input' op expects parent op 'coll.schedule'}}
%a = coll.input rank 0 chunk 0

// -----

// expected-error @+1 {{units 3 must be a multiple of the 2 blocks of a allgather}}
coll.program @p allgather ranks 2 units 3 scratch 0 {
  coll.rank 0 {}
  coll.rank 1 {}
}

// -----

// expected-error @+1 {{rank 1 has no coll.rank program}}
coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {}
  // expected-error @+1 {{rank 0 has two programs}}
  coll.rank 0 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {}
  coll.rank 1 {}
  // expected-error @+1 {{rank 2 is out of range: the program has 2 ranks}}
  coll.rank 2 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{send takes exactly 0 dst references, got 1}}
    coll.send in[0:1] -> out[0:1]
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{send rank 0 is itself}}
    coll.send in[0:1] -> send 0 id 0
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{recv rank 5 is out of range: the program has 2 ranks}}
    coll.recv recv 5 id 0 -> out[1:2]
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{in[1:2] is out of range: rank 0's in buffer has 1 units}}
    coll.local_copy in[1:2] -> out[1:2]
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 1 {
  coll.rank 0 {
    // expected-error @+1 {{mixes ranges of 1 and 2 units}}
    coll.local_copy in[0:1] -> out[0:2]
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{sends transfer 7 to rank 1, which never receives it}}
    coll.send in[0:1] -> send 1 id 7
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {}
  coll.rank 1 {
    // expected-error @+1 {{receives transfer 3 from rank 0, which never sends it}}
    coll.recv recv 0 id 3 -> out[0:1]
  }
}

// -----

coll.program @p allgather ranks 3 units 3 scratch 0 {
  coll.rank 0 {
    coll.send in[0:1] -> send 1 id 0
  }
  coll.rank 1 {}
  coll.rank 2 {
    // expected-error @+1 {{receives transfer 0 from rank 0 but rank 0 sends it to rank 1}}
    coll.recv recv 0 id 0 -> out[0:1]
  }
}

// -----

coll.program @p allgather ranks 2 units 4 scratch 0 {
  coll.rank 0 {
    coll.send in[0:2] -> send 1 id 0
  }
  coll.rank 1 {
    // expected-error @+1 {{receives 1 units of transfer 0 but 2 are sent}}
    coll.recv recv 0 id 0 -> out[0:1]
  }
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    coll.send in[0:1] -> send 1 id 0
    // expected-error @+1 {{reuses transfer id 0}}
    coll.send in[0:1] -> send 1 id 0
  }
  coll.rank 1 {
    coll.recv recv 0 id 0 -> out[0:1]
  }
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{unknown buffer 'scratch' (expected in, out or tmp, or recv)}}
    coll.local_copy scratch[0:1] -> out[0:1]
  }
  coll.rank 1 {}
}

// -----

coll.program @p allgather ranks 2 units 2 scratch 0 {
  coll.rank 0 {
    // expected-error @+1 {{unit range [2:1] is empty or negative}}
    coll.local_copy in[2:1] -> out[0:1]
  }
  coll.rank 1 {}
}

// -----

// expected-error @+1 {{ranks 1000000000 is above the limit of 65536}}
coll.collective @a allreduce ranks 1000000000 op sum

// -----

// expected-error @+1 {{chunks 2147483647 is above the limit of 16777216}}
coll.collective @a allreduce ranks 4 chunks 2147483647 op sum

// -----

// expected-error @+1 {{slices 1000000 is above the limit of 1024}}
coll.collective @a allreduce ranks 4 slices 1000000 op sum

// -----

// expected-error @+1 {{units (chunks x slices) 16777472 is above the limit of 16777216}}
coll.collective @a allreduce ranks 4 chunks 65537 slices 256 op sum

// -----

// Within every single limit, but the verifiers would index too many positions.
// expected-error @+1 {{allreduce is too large: ranks x max(ranks, chunks) x slices = 4096 x 4096 x 1 exceeds the 4194304 (rank, chunk, slice) positions the verifiers index}}
coll.schedule @s allreduce ranks 4096 op sum {
}

// -----

// A count beyond an int saturates (4294967298 is not read as 2).
// expected-error @+1 {{ranks 2147483647 is above the limit of 65536}}
coll.collective @a allreduce ranks 4294967298 chunks 2 op sum

// -----

// expected-error @+1 {{slices 2097152 is above the limit of 1024}}
coll.program @p allgather ranks 8 slices 2097152 units 8 scratch 0 {
}

// -----

coll.template @map_operands allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the ranks map binds 1 operands (0 dimensions after the position, 1 symbols) but 2 are given}}
  %s = coll.tmpl.reduce_chain chunk %c0 ranks affine_map<(k)[n] -> (k mod n)>()[%n, %n] count %n
}

// -----

coll.template @map_results allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %x = coll.tmpl.input rank %c0 chunk %c0
  // expected-error @+1 {{the ranks map must give one rank, not 2}}
  %t = coll.tmpl.copy_chain %x ranks affine_map<(k) -> (k, k)>() count %n
}

// -----

coll.template @map_position allreduce params ["ranks"] {
^bb0(%n: index):
  %t = tensor.empty(%n) : tensor<?x!coll.chunk>
  // expected-error @+1 {{the partner map needs a first dimension (the position)}}
  %u = coll.tmpl.exchange %t partner affine_map<()[n] -> (n)>()[%n]
}
