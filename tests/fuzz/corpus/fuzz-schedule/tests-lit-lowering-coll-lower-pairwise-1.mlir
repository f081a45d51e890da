coll.collective @a2a alltoall ranks 4 algorithm "dissemination"
