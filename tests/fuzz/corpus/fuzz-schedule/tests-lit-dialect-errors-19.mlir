%a = coll.input rank 0 chunk 0
