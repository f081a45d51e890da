coll.collective @a broadcast ranks 4 op sum
