// coll-lower lowers every coll.collective by its own algorithm, whatever its family.
// RUN: coll-opt %s --coll-lower | FileCheck %s
// RUN: coll-opt %s --coll-lower="channels=2" | FileCheck %s --check-prefix=CHANNELS

// CHECK-LABEL: coll.schedule @ring4 allreduce ranks 4 chunks 4 op sum algorithm "ring"
// CHECK:         coll.reduce_send
// CHECK-LABEL: coll.schedule @tree4 broadcast ranks 4 root 1 algorithm "binomial-tree"
// CHECK:         coll.copy
// A parameter reaches the lowering of the algorithm that takes it (ring: two rings, one
// channel each).
// CHECKCHANNELS-LABEL: coll.schedule @ring4
// CHANNELS: {channel = 1 : i64
coll.collective @ring4 allreduce ranks 4 op sum algorithm "ring"
coll.collective @tree4 broadcast ranks 4 root 1 algorithm "binomial-tree"
