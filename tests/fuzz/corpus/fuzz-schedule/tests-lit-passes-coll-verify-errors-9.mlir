coll.schedule @root broadcast ranks 2 root 1 {
  %a = coll.input rank 0 chunk 0
}
