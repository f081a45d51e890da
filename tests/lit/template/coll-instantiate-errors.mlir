// Errors of templates name the template's line and the parameters that break it.
// RUN: coll-opt %s -split-input-file --coll-instantiate=ranks=3 --coll-verify -verify-diagnostics

// An off-by-one ring that works for no N: the last rank's successor is rank N.
coll.template @off_by_one allgather params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  affine.for %r = 0 to %n {
    %x = coll.tmpl.input rank %r chunk %r
    %next = affine.apply affine_map<(r) -> (r + 1)>(%r)
    // expected-error @+1 {{rank 3 is out of range: ranks are 0..2 (ranks=3)}}
    %y = coll.tmpl.copy %x to rank %next
  }
}

// -----

// A precondition the rank count does not meet.
coll.template @even_only allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %odd = arith.remui %n, %c2 : index
  %even = arith.cmpi eq, %odd, %c0 : index
  // expected-error @+1 {{requires: the rank count must be even (ranks=3)}}
  coll.tmpl.require %even, "the rank count must be even"
}

// -----

// Outputs never bound: the verifier names them, and the instantiation in a note.
// expected-error @+2 {{output rank 0 chunk 1, output rank 0 chunk 2, output rank 1 chunk 0, output rank 1 chunk 2 and 3 more are never bound}}
// expected-note @+1 {{in @forgets_rank_2 instantiated for ranks=3}}
coll.template @forgets_rank_2 allgather params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = coll.tmpl.input rank %c0 chunk %c0
  %y = coll.tmpl.input rank %c1 chunk %c0
  coll.tmpl.output %x rank %c0 chunk %c0
  coll.tmpl.output %y rank %c1 chunk %c1
}

// -----

// A parameter with no value.
// expected-error @+1 {{template @grid: parameter 'rows' has no value: give it (rows=VALUE), or a default in the template}}
coll.template @grid allreduce params ["ranks", "rows"] {
^bb0(%n: index, %rows: index):
}

// -----

// Only integer arithmetic.
coll.template @floats allreduce params ["ranks"] {
^bb0(%n: index):
  // expected-error @+1 {{a template computes with index and integer constants only (ranks=3)}}
  %half = arith.constant 0.5 : f32
}

// -----

coll.template @divides_by_zero allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{divides by zero (ranks=3)}}
  %q = arith.divui %n, %c0 : index
}

// -----

coll.template @reads_unwritten allgather params ["ranks"] {
^bb0(%n: index):
  %c1 = arith.constant 1 : index
  %t = tensor.empty(%n) : tensor<?x!coll.chunk>
  // expected-error @+1 {{reads element 1 of a table, which was never written (ranks=3)}}
  %x = tensor.extract %t[%c1] : tensor<?x!coll.chunk>
}

// -----

coll.template @no_step allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{loop step 0 is not positive (ranks=3)}}
  scf.for %i = %c0 to %n step %c0 {
  }
}

// -----

coll.template @twice allreduce params ["ranks"] {
^bb0(%n: index):
  coll.tmpl.chunks %n
  // expected-error @+1 {{the chunk count is set twice, or after the first chunk op (ranks=3)}}
  coll.tmpl.chunks %n
}

// -----

// The first parameter is the rank count.
// expected-error @+1 {{the first parameter must be "ranks" (the rank count)}}
coll.template @no_ranks allreduce params ["rows"] {
^bb0(%rows: index):
}

// -----

// expected-error @+1 {{names 2 parameters but its body takes 1 arguments}}
coll.template @arguments allreduce params ["ranks", "rows"] {
^bb0(%n: index):
}

// -----

// expected-error @+1 {{defaults names 'cols', which is not a parameter}}
coll.template @defaults allreduce params ["ranks", "rows"] attributes {defaults = {cols = 2}} {
^bb0(%n: index, %rows: index):
}

// -----

// expected-error @+1 {{tune 'rows' must be a non-empty list of integers}}
coll.template @tune allreduce params ["ranks", "rows"] attributes {tune = {rows = []}} {
^bb0(%n: index, %rows: index):
}

// -----

coll.schedule @outside allreduce ranks 2 op sum {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'coll.tmpl.input' op is only valid inside a coll.template}}
  %x = coll.tmpl.input rank %c0 chunk %c0
}

// -----

// Exact division that does not divide.
coll.template @halves allreduce params ["ranks"] {
^bb0(%n: index):
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{requires: the rank count must be even (ranks=3)}}
  %half = coll.tmpl.divide %n, %c2, "the rank count must be even"
}

// -----

coll.template @by_zero allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{divides by 0 (ranks=3)}}
  %q = coll.tmpl.divide %n, %c0, "never"
}

// -----

coll.template @log_zero allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{log2 of 0 (ranks=3)}}
  %l = coll.tmpl.log2 %c0
}

// -----

// A chain whose map runs past the last rank.
#past = affine_map<(k)[n] -> (k + 1)>
coll.template @chain_past allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the map gives rank 3 at position 2, out of range: ranks are 0..2 (ranks=3)}}
  %s = coll.tmpl.reduce_chain chunk %c0 ranks #past()[%n] count %n
}

// -----

#ranks = affine_map<(k) -> (k)>
coll.template @empty_chain allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a chain of 0 ranks (ranks=3)}}
  %s = coll.tmpl.reduce_chain chunk %c0 ranks #ranks() count %c0
}

// -----

// A copy chain must start where its value is.
#from1 = affine_map<(k) -> (k + 1)>
coll.template @wrong_start allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %x = coll.tmpl.input rank %c0 chunk %c0
  // expected-error @+1 {{the chain starts at rank 1 but the value is at rank 0 (ranks=3)}}
  %t = coll.tmpl.copy_chain %x ranks #from1() count %c2
}

// -----

// An exchange partner outside the table.
#next = affine_map<(i) -> (i + 1)>
coll.template @partner_past allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %t = tensor.generate %n {
  ^bb0(%r: index):
    %x = coll.tmpl.input rank %r chunk %c0
    tensor.yield %x : !coll.chunk
  } : tensor<?x!coll.chunk>
  // expected-error @+1 {{entry 2's partner is 3: partners are other entries of the table of 3 (ranks=3)}}
  %u = coll.tmpl.exchange %t partner #next()
}

// -----

// A table entry never written.
coll.template @hole allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %t = tensor.empty(%n) : tensor<?x!coll.chunk>
  // expected-error @+1 {{entry 0 of the table was never written (ranks=3)}}
  %s = coll.tmpl.reduce_to %t rank %c0
}
