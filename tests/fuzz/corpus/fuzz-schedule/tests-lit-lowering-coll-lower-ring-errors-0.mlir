coll.collective @ar allreduce ranks 4 op sum algorithm "ring"
