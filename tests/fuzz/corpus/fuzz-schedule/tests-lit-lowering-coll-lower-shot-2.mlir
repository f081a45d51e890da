coll.collective @three allreduce ranks 4 op sum algorithm "three-shot"

coll.collective @big allreduce ranks 8 op sum algorithm "one-shot"
