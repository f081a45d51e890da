coll.collective @one allreduce ranks 4 op sum algorithm "one-shot"

coll.collective @two allreduce ranks 4 op max algorithm "two-shot"


coll.collective @rs reduce_scatter ranks 4 op sum algorithm "one-shot"
