// Pairwise all-to-all for every N: in round k (1..N-1) rank r sends rank (r + k) mod N its block.
coll.template @pairwise_alltoall alltoall params ["ranks"] {
^bb0(%n: index):
  affine.for %r = 0 to %n {
    %mine = coll.tmpl.input rank %r chunk %r
    coll.tmpl.output %mine rank %r chunk %r
  }
  affine.for %k = 1 to %n {
    affine.for %r = 0 to %n {
      %to = affine.apply affine_map<(r, k)[n] -> ((r + k) mod n)>(%r, %k)[%n]
      %round = affine.apply affine_map<(k) -> (k - 1)>(%k)
      %x = coll.tmpl.input rank %r chunk %to
      %y = coll.tmpl.copy %x to rank %to step %round
      coll.tmpl.output %y rank %to chunk %r
    }
  }
}
