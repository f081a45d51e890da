coll.collective @a allreduce ranks 4294967298 chunks 2 op sum
