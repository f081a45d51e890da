coll.schedule @bc broadcast ranks 2 root 0 {
  %a = coll.input rank 0 chunk 0
  %b = coll.copy %a to rank 1
  coll.output %a rank 0 chunk 0
  coll.output %b rank 1 chunk 0
}
