// Ring allreduce for every N: chunk c is reduced along ranks c+1, c+2, ..., c, then circulates.
#after = affine_map<(c, k)[n] -> ((c + k) mod n)>
coll.template @ring_allreduce allreduce params ["ranks"] {
^bb0(%n: index):
  %c1 = arith.constant 1 : index
  coll.tmpl.chunks %n
  affine.for %c = 0 to %n {
    %first = affine.apply #after(%c, %c1)[%n]
    %x0 = coll.tmpl.input rank %first chunk %c
    %sum = affine.for %k = 2 to affine_map<()[n] -> (n + 1)>()[%n]
        iter_args(%v = %x0) -> (!coll.chunk) {
      %r = affine.apply #after(%c, %k)[%n]
      %x = coll.tmpl.copy %v to rank %r
      %own = coll.tmpl.input rank %r chunk %c
      %s = coll.tmpl.reduce %x, %own at rank %r
      affine.yield %s : !coll.chunk
    }
    coll.tmpl.output %sum rank %c chunk %c
    %last = affine.for %k = 1 to %n iter_args(%v = %sum) -> (!coll.chunk) {
      %r = affine.apply #after(%c, %k)[%n]
      %w = coll.tmpl.copy %v to rank %r
      coll.tmpl.output %w rank %r chunk %c
      affine.yield %w : !coll.chunk
    }
  }
}
