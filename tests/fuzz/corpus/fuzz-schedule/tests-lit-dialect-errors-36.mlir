coll.schedule @s allreduce ranks 100000 op sum {
}
