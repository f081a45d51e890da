coll.collective @rd allreduce ranks 3 op sum algorithm "recursive-doubling"

coll.collective @ag allgather ranks 4 algorithm "recursive-doubling"

coll.collective @rs reduce_scatter ranks 4 op sum algorithm "recursive-halving"

coll.collective @rab allreduce ranks 3 op sum algorithm "rabenseifner"

coll.collective @rab4 allreduce ranks 4 op sum algorithm "rabenseifner"

coll.collective @rs reduce_scatter ranks 4 op sum algorithm "rdh"

coll.collective @ar allreduce ranks 8 op sum algorithm "rdh"

coll.collective @ar allreduce ranks 4 op sum algorithm "recursive-halving"
