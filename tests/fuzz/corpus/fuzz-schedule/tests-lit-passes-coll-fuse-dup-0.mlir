coll.schedule @flat broadcast ranks 4 root 0 {
  %a = coll.input rank 0 chunk 0
  %b = coll.copy %a to rank 1
  %c = coll.copy %a to rank 2
  %d = coll.copy %a to rank 3
  coll.output %a rank 0 chunk 0
  coll.output %b rank 1 chunk 0
  coll.output %c rank 2 chunk 0
  coll.output %d rank 3 chunk 0
}
