coll.collective @ar allreduce ranks 4 op sum algorithm "ring"

coll.collective @ag allgather ranks 4 algorithm "ring"

coll.collective @rs reduce_scatter ranks 4 op max algorithm "line"

coll.collective @bc broadcast ranks 4 algorithm "binomial-tree"
