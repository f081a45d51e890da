coll.collective @bc broadcast ranks 5 root 2 algorithm "binomial-tree"

coll.collective @re reduce ranks 4 op sum algorithm "binomial-tree"

coll.collective @ar allreduce ranks 3 op sum algorithm "binomial-tree"


coll.collective @bc broadcast ranks 4 algorithm "pipelined-tree"

coll.collective @ar allreduce ranks 3 op sum algorithm "pipelined-tree"

coll.collective @re reduce ranks 5 op sum root 1 algorithm "pipelined-tree"

coll.collective @ar allreduce ranks 4 op sum algorithm "double-binary-tree"

coll.collective @bc broadcast ranks 4 algorithm "double-binary-tree"
