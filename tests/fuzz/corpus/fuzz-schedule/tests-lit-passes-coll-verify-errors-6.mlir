coll.schedule @unbound_many allgather ranks 3 {
}
