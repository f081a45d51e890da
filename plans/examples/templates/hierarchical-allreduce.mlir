// Hierarchical allreduce over nodes of L consecutive ranks (ranks-per-node: given, else the
// topology's, else 2): a ring reduce-scatter inside every node, each share reduced at node 0
// and sent back to every node, then a ring allgather inside every node.
#local = affine_map<(g, c, k)[l] -> (g * l + (c + k) mod l)>
coll.template @hierarchical_allreduce allreduce params ["ranks", "ranks-per-node"]
    attributes {defaults = {"ranks-per-node" = 2}} {
^bb0(%n: index, %l: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nodes = affine.apply affine_map<()[n, l] -> (n floordiv l)>()[%n, %l]
  %rest = affine.apply affine_map<()[n, l] -> (n mod l)>()[%n, %l]
  %ok = arith.cmpi eq, %rest, %c0 : index
  coll.tmpl.require %ok, "ranks-per-node must divide the rank count"
  coll.tmpl.chunks %l
  affine.for %c = 0 to %l {
    %none = tensor.empty(%nodes) : tensor<?x!coll.chunk>
    %shares = affine.for %g = 0 to %nodes iter_args(%t = %none) -> (tensor<?x!coll.chunk>) {
      %r0 = affine.apply #local(%g, %c, %c1)[%l]
      %x0 = coll.tmpl.input rank %r0 chunk %c
      %s = affine.for %k = 2 to affine_map<()[l] -> (l + 1)>()[%l]
          iter_args(%v = %x0) -> (!coll.chunk) {
        %r = affine.apply #local(%g, %c, %k)[%l]
        %x = coll.tmpl.copy %v to rank %r
        %own = coll.tmpl.input rank %r chunk %c
        %y = coll.tmpl.reduce %x, %own at rank %r
        affine.yield %y : !coll.chunk
      }
      %t1 = tensor.insert %s into %t[%g] : tensor<?x!coll.chunk>
      affine.yield %t1 : tensor<?x!coll.chunk>
    }
    %first = tensor.extract %shares[%c0] : tensor<?x!coll.chunk>
    %total = affine.for %g = 1 to %nodes iter_args(%v = %first) -> (!coll.chunk) {
      %share = tensor.extract %shares[%g] : tensor<?x!coll.chunk>
      %x = coll.tmpl.copy %share to rank %c
      %y = coll.tmpl.reduce %v, %x at rank %c
      affine.yield %y : !coll.chunk
    }
    affine.for %g = 0 to %nodes {
      %home = affine.apply #local(%g, %c, %c0)[%l]
      %at = affine.if affine_set<(g) : (g - 1 >= 0)>(%g) -> !coll.chunk {
        %y = coll.tmpl.copy %total to rank %home
        affine.yield %y : !coll.chunk
      } else {
        affine.yield %total : !coll.chunk
      }
      coll.tmpl.output %at rank %home chunk %c
      %last = affine.for %k = 1 to %l iter_args(%w = %at) -> (!coll.chunk) {
        %r = affine.apply #local(%g, %c, %k)[%l]
        %y = coll.tmpl.copy %w to rank %r
        coll.tmpl.output %y rank %r chunk %c
        affine.yield %y : !coll.chunk
      }
    }
  }
}
