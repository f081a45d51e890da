coll.collective @ring4 allreduce ranks 4 op sum algorithm "ring"
coll.collective @tree4 broadcast ranks 4 root 1 algorithm "binomial-tree"
