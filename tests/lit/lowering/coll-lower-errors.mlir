// coll-lower reports an unknown algorithm or a parameter the algorithm rejects on the collective,
// and a malformed, unknown or unused parameter key on the module.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/ops.mlir --coll-lower -split-input-file -verify-diagnostics
// RUN: coll-opt %t/value.mlir --coll-lower="params='bidirectional=maybe order=0,1,,3'" -split-input-file -verify-diagnostics
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='colour=red'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='channels'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='channels=2 channels=3'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='slices=2'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=SLICES
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='fanout=3'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=UNUSED
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='channels=99999'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not coll-opt %t/ring.mlir --coll-lower="params='inter=zigzag'" --coll-fuse-reduce-copy 2>&1 | FileCheck %s --check-prefix=INTER

//--- ops.mlir
// expected-error @+1 {{unknown algorithm 'zigzag' (known: }}
coll.collective @zig allreduce ranks 4 op sum algorithm "zigzag"

// -----

// expected-error @+1 {{algorithm 'ring' does not implement broadcast}}
coll.collective @b broadcast ranks 4 root 0 algorithm "ring"

// -----

// expected-error @+1 {{names no algorithm: give it `algorithm "ring"` (say) or run coll-lower with algorithm=NAME}}
coll.collective @none allreduce ranks 4 op sum

//--- value.mlir
// A value its spec refuses, on each collective whose algorithm declares the key.
// expected-error @+1 {{parameter bidirectional=maybe: "maybe" is not true or false}}
coll.collective @ar allreduce ranks 4 op sum algorithm "ring"

// -----

// expected-error @+1 {{parameter order=0,1,,3: "0,1,,3" is not a comma-separated list of integers (e.g. 0,2,1,3)}}
coll.collective @ag allgather ranks 4 algorithm "line"

//--- ring.mlir
coll.collective @ar allreduce ranks 4 op sum algorithm "ring"
// UNKNOWN: error: params: colour=red: unknown key "colour" (valid keys: bidirectional, channels,
// MALFORMED: error: params: expected KEY=VALUE, got "channels"
// TWICE: error: params: channels=3: channels is given twice
// SLICES: error: params: slices=2: slices is not a lowering parameter: coll-slice cuts the chunks
// UNUSED: error: params: fanout=3: no algorithm lowered here takes fanout (lowered: ring)
// RANGE: error: parameter channels=99999: "99999" is above the maximum of 1024
// INTER: error: params: inter=zigzag: no algorithm lowered here takes inter (lowered: ring)
