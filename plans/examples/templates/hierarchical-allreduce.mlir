// Hierarchical allreduce over nodes of L consecutive ranks (ranks-per-node: given, else the
// topology's, else 2): a ring reduce-scatter inside every node, then every node's share of
// chunk c reduced at each node's rank c (one shot across nodes), then a ring allgather inside.
#ring = affine_map<(k, g, c)[l] -> (g * l + (c + k + 1) mod l)>
#from = affine_map<(k, g, c)[l] -> (g * l + (c + k) mod l)>
coll.template @hierarchical_allreduce allreduce params ["ranks", "ranks-per-node"]
    attributes {defaults = {"ranks-per-node" = 2}} {
^bb0(%n: index, %l: index):
  %nodes = coll.tmpl.divide %n, %l, "ranks-per-node must divide the rank count"
  coll.tmpl.chunks %l
  affine.for %c = 0 to %l {
    %shares = tensor.generate %nodes {
    ^bb0(%g: index):
      %s = coll.tmpl.reduce_chain chunk %c ranks #ring(%g, %c)[%l] count %l
      tensor.yield %s : !coll.chunk
    } : tensor<?x!coll.chunk>
    affine.for %g = 0 to %nodes {
      %home = affine.apply affine_map<(g, c)[l] -> (g * l + c)>(%g, %c)[%l]
      %total = coll.tmpl.reduce_to %shares rank %home
      %all = coll.tmpl.copy_chain %total ranks #from(%g, %c)[%l] count %l output chunk %c
    }
  }
}
