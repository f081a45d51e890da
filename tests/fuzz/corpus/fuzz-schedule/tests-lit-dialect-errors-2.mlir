coll.collective @a broadcast ranks 4 root 4
