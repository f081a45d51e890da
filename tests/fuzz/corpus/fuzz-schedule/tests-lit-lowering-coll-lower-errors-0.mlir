coll.collective @zig allreduce ranks 4 op sum algorithm "zigzag"
