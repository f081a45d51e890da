coll.collective @a barrier ranks 4 slices 2
