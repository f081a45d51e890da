// coll-lower-ring reports bad parameters on the collective.
// RUN: coll-opt %s --coll-lower-ring="order=0,2,2,3" -verify-diagnostics
// RUN: not coll-opt %s --coll-lower-ring="channels=0" 2>&1 | FileCheck %s --check-prefix=CHANNELS
// RUN: not coll-opt %s --coll-lower-ring="channels=2 topology=ring:4" 2>&1 | FileCheck %s --check-prefix=DISJOINT
// RUN: not coll-opt %s --coll-lower-ring="topology=ring:8" 2>&1 | FileCheck %s --check-prefix=RANKS
// RUN: not coll-opt %s --coll-lower-ring="topology=no-such-preset" 2>&1 | FileCheck %s --check-prefix=TOPO

// expected-error @+1 {{ring order [0, 2, 2, 3] is not a permutation of 0..3}}
coll.collective @ar allreduce ranks 4 op sum algorithm "ring"

// CHANNELS: error: channels must be at least 1 (got 0)
// DISJOINT: error: channels 2 exceed the {{[01]}} link-disjoint rings of topology
// RANKS: error: the topology has 8 ranks, the collective 4
// TOPO: error: topology 'no-such-preset':
