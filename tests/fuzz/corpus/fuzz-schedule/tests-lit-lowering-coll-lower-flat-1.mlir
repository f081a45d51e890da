coll.collective @bc broadcast ranks 4 root 4 algorithm "flat"
