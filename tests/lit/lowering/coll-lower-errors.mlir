// coll-lower reports an unknown algorithm or a parameter the algorithm rejects on the collective.
// RUN: coll-opt %s --coll-lower -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown algorithm 'zigzag' (known: ring, line,}}
coll.collective @zig allreduce ranks 4 op sum algorithm "zigzag"

// -----

// expected-error @+1 {{algorithm 'ring' does not implement broadcast}}
coll.collective @b broadcast ranks 4 root 0 algorithm "ring"
