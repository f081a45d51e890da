coll.collective @bc broadcast ranks 4 root 1 algorithm "two-shot"
