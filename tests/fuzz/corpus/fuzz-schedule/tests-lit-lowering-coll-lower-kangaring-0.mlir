coll.collective @ag allgather ranks 6 algorithm "kangaring"

coll.collective @rs reduce_scatter ranks 6 op sum algorithm "kangaring"

coll.collective @ar allreduce ranks 6 op sum algorithm "kangaring"


coll.collective @ar allreduce ranks 4 op sum algorithm "kangaring"

coll.collective @rs reduce_scatter ranks 8 op sum algorithm "kangaring"

coll.collective @five allreduce ranks 5 op sum algorithm "kangaring"
