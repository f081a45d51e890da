coll.collective @bc broadcast ranks 3 root 1 algorithm "flat"

coll.collective @sc scatter ranks 3 root 0 algorithm "flat"

coll.collective @ga gather ranks 3 root 2 algorithm "flat"

coll.collective @re reduce ranks 3 op sum root 1 algorithm "flat"


coll.collective @ar allreduce ranks 4 op sum algorithm "flat"
