coll.schedule @s broadcast ranks 4 root 2 {
  %a = coll.input rank 1 chunk 0
}
