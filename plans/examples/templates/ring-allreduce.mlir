// Ring allreduce for every N: chunk c is reduced along ranks c+1, c+2, ..., c, then circulates.
#next = affine_map<(k, c)[n] -> ((c + k + 1) mod n)>
#from = affine_map<(k, c)[n] -> ((c + k) mod n)>
coll.template @ring_allreduce allreduce params ["ranks"] {
^bb0(%n: index):
  coll.tmpl.chunks %n
  affine.for %c = 0 to %n {
    %sum = coll.tmpl.reduce_chain chunk %c ranks #next(%c)[%n] count %n
    %all = coll.tmpl.copy_chain %sum ranks #from(%c)[%n] count %n output chunk %c
  }
}
