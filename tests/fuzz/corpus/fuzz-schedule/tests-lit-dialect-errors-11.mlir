coll.schedule @s allgather ranks 2 slices 2 {
  %a = coll.input rank 1 chunk 0 slice 2
}
