// coll-slice replicates a schedule per slice, interleaved, and the result still verifies.
// RUN: coll-opt %s --coll-slice=slices=2 --coll-verify | FileCheck %s
// RUN: coll-opt %s --coll-slice=slices=2 --coll-slice=slices=3 --coll-verify | FileCheck %s --check-prefix=TWICE
// RUN: not coll-opt %s --coll-slice=slices=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not coll-opt %s --coll-slice=slices=1000000 2>&1 | FileCheck %s --check-prefix=HUGE

// CHECK-LABEL: coll.schedule @bc broadcast ranks 2 slices 2 root 0 {
// CHECK-NEXT:    %[[A0:.*]] = coll.input rank 0 chunk 0 slice 0
// CHECK-NEXT:    %[[A1:.*]] = coll.input rank 0 chunk 0 slice 1
// CHECK-NEXT:    %[[B0:.*]] = coll.copy %[[A0]] to rank 1
// CHECK-NEXT:    %[[B1:.*]] = coll.copy %[[A1]] to rank 1
// CHECK-NEXT:    coll.output %[[A0]] rank 0 chunk 0 slice 0
// CHECK-NEXT:    coll.output %[[A1]] rank 0 chunk 0 slice 1
// TWICE-LABEL: coll.schedule @bc broadcast ranks 2 slices 6 root 0
// TWICE: coll.input rank 0 chunk 0 slice 5
// BAD: coll-slice: slices must be 1 to 1024 (got 0)
// HUGE: coll-slice: slices must be 1 to 1024 (got 1000000)
coll.schedule @bc broadcast ranks 2 root 0 {
  %a = coll.input rank 0 chunk 0
  %b = coll.copy %a to rank 1
  coll.output %a rank 0 chunk 0
  coll.output %b rank 1 chunk 0
}
