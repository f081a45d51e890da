// coll-verify rejects broken schedules and says which output misses or repeats what, where.
// RUN: coll-opt %s -split-input-file --coll-verify -verify-diagnostics

// Missing contribution: the chain of chunk 0 skips rank 2.
coll.schedule @missing allreduce ranks 3 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
  %y = coll.copy %s to rank 0
  %z = coll.copy %s to rank 2
  // expected-error @+1 {{output rank 1 chunk 0 lacks the contribution of rank 2 chunk 0}}
  coll.output %s rank 1 chunk 0
  // expected-error @+1 {{output rank 0 chunk 0 lacks the contribution of rank 2 chunk 0}}
  coll.output %y rank 0 chunk 0
  // expected-error @+1 {{output rank 2 chunk 0 lacks the contribution of rank 2 chunk 0}}
  coll.output %z rank 2 chunk 0
}

// -----

// Double counting: rank 1's contribution is added twice.
coll.schedule @double allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %a to rank 1
  %s = coll.reduce %x, %b at rank 1
  // expected-error @+1 {{counts the contribution of rank 1 chunk 0 twice: operand 1 and the operands before it both contain it (reaches output rank 1 chunk 0)}}
  %t = coll.reduce %s, %b at rank 1
  %y = coll.copy %t to rank 0
  coll.output %t rank 1 chunk 0
  coll.output %y rank 0 chunk 0
}

// -----

// Wrong location: rank 1 reduces a value that still resides at rank 0.
coll.schedule @location allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  // expected-error @+1 {{reduction operand 0 resides at rank 0, not at rank 1 (copy it there first, or allow remote_reads on the schedule)}}
  %s = coll.reduce %a, %b at rank 1
}

// -----

// Wrong location of an output.
coll.schedule @output_location allgather ranks 2 {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  coll.output %a rank 0 chunk 0
  coll.output %b rank 1 chunk 1
  %c = coll.copy %a to rank 1
  coll.output %c rank 1 chunk 0
  // expected-error @+1 {{output operand 0 resides at rank 1, not at rank 0}}
  coll.output %b rank 0 chunk 1
}

// -----

// An output bound twice.
coll.schedule @twice broadcast ranks 2 root 0 {
  %a = coll.input rank 0 chunk 0
  %b = coll.copy %a to rank 1
  coll.output %a rank 0 chunk 0
  coll.output %b rank 1 chunk 0
  // expected-error @+1 {{output rank 1 chunk 0 is bound twice}}
  coll.output %b rank 1 chunk 0
}

// -----

// A required output is never bound.
// expected-error @+1 {{output rank 1 chunk 0 is never bound}}
coll.schedule @unbound broadcast ranks 2 root 0 {
  %a = coll.input rank 0 chunk 0
  %b = coll.copy %a to rank 1
  coll.output %a rank 0 chunk 0
}

// -----

// Many unbound outputs are summarised in one diagnostic.
// expected-error @+1 {{output rank 0 chunk 0, output rank 0 chunk 1, output rank 0 chunk 2, output rank 1 chunk 0 and 5 more are never bound}}
coll.schedule @unbound_many allgather ranks 3 {
}

// -----

// Non-deterministic reduction order: rank 0 computes a+b, rank 1 computes b+a.
coll.schedule @order allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %b to rank 0
  %y = coll.copy %a to rank 1
  %s0 = coll.reduce %a, %x at rank 0
  %s1 = coll.reduce %b, %y at rank 1
  coll.output %s0 rank 0 chunk 0
  // expected-error @+1 {{output rank 1 chunk 0 is not bitwise identical to output rank 0 chunk 0: both combine the same contributions, but in a different reduction order}}
  coll.output %s1 rank 1 chunk 0
}

// -----

// Out-of-range rank.
coll.schedule @range allgather ranks 2 {
  %a = coll.input rank 0 chunk 0
  // expected-error @+1 {{rank 2 is out of range: the collective has 2 ranks}}
  %b = coll.copy %a to rank 2
}

// -----

// Wrong root: the schedule broadcasts from rank 0, the collective's root is 1.
coll.schedule @root broadcast ranks 2 root 1 {
  // expected-error @+1 {{rank 0 has no input in a broadcast with root 1}}
  %a = coll.input rank 0 chunk 0
}

// -----

// A reduction that mixes chunks.
coll.schedule @mixed allreduce ranks 2 chunks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 0 chunk 1
  // expected-error @+1 {{combines chunk 0 with chunk 1 (operand 1): a reduction must combine one chunk}}
  %s = coll.reduce %a, %b at rank 0
}

// -----

// The wrong rank's data in an allgather output.
coll.schedule @foreign allgather ranks 3 {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %c to rank 0
  // expected-error @+1 {{output rank 0 chunk 1 lacks the contribution of rank 1 chunk 0, and holds the contribution of rank 2 chunk 0, which does not belong there}}
  coll.output %x rank 0 chunk 1
}

// -----

// A barrier in which rank 2 never hears from rank 0.
coll.schedule @barrier barrier ranks 3 {
  %t0 = coll.input rank 0 chunk 0
  %t1 = coll.input rank 1 chunk 0
  %t2 = coll.input rank 2 chunk 0
  %a = coll.copy %t1 to rank 2
  %u = coll.reduce %t2, %a at rank 2
  // expected-error @+1 {{output rank 2 chunk 0 lacks the contribution of rank 0 chunk 0}}
  coll.output %u rank 2 chunk 0
}

// -----

// A sliced schedule names the slice in its diagnostics.
coll.schedule @slices allreduce ranks 2 slices 2 op sum {
  %a = coll.input rank 0 chunk 0 slice 1
  %b = coll.input rank 1 chunk 0 slice 0
  %x = coll.copy %a to rank 1
  // expected-error @+1 {{combines chunk 0 slice 1 with chunk 0 slice 0 (operand 1)}}
  %s = coll.reduce %x, %b at rank 1
}
