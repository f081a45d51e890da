coll.collective @a allgather ranks 0
