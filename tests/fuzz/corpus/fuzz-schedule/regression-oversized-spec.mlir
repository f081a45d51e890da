coll.schedule @s allreduce ranks 100000 chunks 100000 op sum {
}
