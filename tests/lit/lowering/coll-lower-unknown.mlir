// An unknown algorithm name is reported by any lowering pass, with the known names.
// RUN: not coll-opt %s --coll-lower-ring 2>&1 | FileCheck %s
// CHECK: unknown algorithm 'zigzag' (known: ring, line,
coll.collective @ar allreduce ranks 4 op sum algorithm "zigzag"
