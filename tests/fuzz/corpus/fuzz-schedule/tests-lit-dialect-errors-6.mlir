coll.collective @a 7 ranks 4
