// coll-fuse-dup turns copies of one value to several ranks into one dup (1R, nW).
// RUN: coll-opt %s --coll-fuse-dup --coll-verify | FileCheck %s
// RUN: coll-opt %s --coll-fuse-dup --coll-cost -o /dev/null | FileCheck %s --check-prefix=COST

// CHECK-LABEL: coll.schedule @flat
coll.schedule @flat broadcast ranks 4 root 0 {
  %a = coll.input rank 0 chunk 0
  // CHECK: %[[D:.*]]:3 = coll.dup %{{.*}} to ranks [1, 2, 3]
  // CHECK-NOT: coll.copy
  %b = coll.copy %a to rank 1
  %c = coll.copy %a to rank 2
  %d = coll.copy %a to rank 3
  coll.output %a rank 0 chunk 0
  // CHECK: coll.output %[[D]]#0 rank 1 chunk 0
  coll.output %b rank 1 chunk 0
  coll.output %c rank 2 chunk 0
  coll.output %d rank 3 chunk 0
}
// One read instead of three at the root.
// COST-LABEL: coll-cost @flat
// COST:       memory touches:   4 units in all
