coll.collective @a allsum ranks 4
