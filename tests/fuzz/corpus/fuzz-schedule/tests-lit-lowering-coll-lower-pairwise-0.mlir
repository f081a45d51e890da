coll.collective @a2a alltoall ranks 4 algorithm "pairwise"

coll.collective @a2a3 alltoall ranks 3 algorithm "pairwise"

coll.collective @dis barrier ranks 3 algorithm "dissemination"

coll.collective @pb barrier ranks 3 algorithm "pairwise-barrier"


coll.collective @ag allgather ranks 4 algorithm "pairwise"
