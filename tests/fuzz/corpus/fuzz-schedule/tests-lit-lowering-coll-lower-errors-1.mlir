coll.collective @b broadcast ranks 4 root 0 algorithm "ring"
