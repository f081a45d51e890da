coll.collective @ag allgather ranks 4 algorithm "binomial-tree"

coll.collective @bc broadcast ranks 4 algorithm "pipelined-tree"

coll.collective @ar allreduce ranks 4 op sum algorithm "double-binary-tree"
