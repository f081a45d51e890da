coll.collective @rs reduce_scatter ranks 6 op sum algorithm "mesh-two-step"

coll.collective @ag allgather ranks 6 algorithm "mesh-two-step"

coll.collective @ar allreduce ranks 6 op sum algorithm "mesh-two-step"

coll.collective @single allreduce ranks 6 op sum algorithm "mesh-single-step"


coll.collective @ar allreduce ranks 3 op sum algorithm "mesh-two-step"
coll.collective @single allreduce ranks 3 op sum algorithm "mesh-single-step"

coll.collective @ag allgather ranks 8 algorithm "mesh-two-step"

coll.collective @six allreduce ranks 6 op sum algorithm "mesh-two-step"
