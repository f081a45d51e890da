// A pass with nothing to act on refuses ops it cannot act on yet instead of exiting 0 having
// done nothing.
// RUN: not coll-opt %s --coll-to-program 2>&1 | FileCheck %s --check-prefix=PROGRAM
// RUN: not coll-opt %s --coll-cost 2>&1 | FileCheck %s --check-prefix=COST
// RUN: not coll-opt %s --coll-verify 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not coll-opt %s --coll-lower --coll-fuse-reduce-copy --coll-export-plan 2>&1 | FileCheck %s --check-prefix=EXPORT

// PROGRAM: error: 'coll.collective' op is not lowered yet: coll-to-program acts on schedules, and the module has none (lower it first: --coll-lower, or plan-compile)
// COST: error: 'coll.collective' op is not lowered yet: coll-cost acts on schedules
// VERIFY: error: 'coll.collective' op is not lowered yet: coll-verify acts on schedules
// EXPORT: error: 'coll.schedule' op is not a program yet: coll-export-plan acts on programs, and the module has none (run --coll-to-program first)
coll.collective @unlowered allreduce ranks 4 op sum algorithm "ring"
