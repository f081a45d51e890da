coll.collective @ag5 allgather ranks 5 algorithm "ring"
