// Two templates in one file: plan-compile needs -a to choose.
coll.template @first allgather params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  affine.for %r = 0 to %n {
    %x = coll.tmpl.input rank %r chunk %c0
    coll.tmpl.output %x rank %r chunk %r
    affine.for %k = 1 to %n {
      %to = affine.apply affine_map<(r, k)[n] -> ((r + k) mod n)>(%r, %k)[%n]
      %y = coll.tmpl.copy %x to rank %to
      coll.tmpl.output %y rank %to chunk %r
    }
  }
}
coll.template @second allgather params ["ranks"] {
^bb0(%n: index):
}
