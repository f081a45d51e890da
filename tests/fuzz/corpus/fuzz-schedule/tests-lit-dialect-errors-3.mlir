coll.collective @a allgather ranks 4 chunks 2
