coll.collective @a allreduce ranks 4
