coll.collective @ar allreduce ranks 4 op sum algorithm "hierarchical"


coll.collective @ar allreduce ranks 6 op sum algorithm "hierarchical"


coll.collective @nodes allreduce ranks 4 op sum algorithm "hierarchical"
