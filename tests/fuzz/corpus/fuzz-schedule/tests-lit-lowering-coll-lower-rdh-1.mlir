coll.collective @ag allgather ranks 4 algorithm "rabenseifner"

coll.collective @ar allreduce ranks 16 op sum algorithm "rdh"

coll.collective @ag allgather ranks 4 algorithm "rdh"

coll.collective @ar allreduce ranks 8 op sum algorithm "rdh"
