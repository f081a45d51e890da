// coll-schedule-steps numbers ops with their port-model round and orders them by it.
// RUN: coll-opt %s --coll-schedule-steps --coll-verify | FileCheck %s

// The transfers are listed leaf-first; the root's port sends to rank 2 first (the longer
// chain below it), then to rank 1 while rank 2 forwards to rank 3.
// CHECK-LABEL: coll.schedule @binomial
// CHECK:      coll.copy %{{.*}} to rank 2 {step = 1 : i64}
// CHECK:      coll.copy %{{.*}} to rank 1 {step = 2 : i64}
// CHECK-NEXT: coll.copy %{{.*}} to rank 3 {step = 2 : i64}
coll.schedule @binomial broadcast ranks 4 root 0 {
  %x = coll.input rank 0 chunk 0
  %b = coll.copy %x to rank 1
  %a = coll.copy %x to rank 2
  %c = coll.copy %a to rank 3
  coll.output %x rank 0 chunk 0
  coll.output %a rank 2 chunk 0
  coll.output %b rank 1 chunk 0
  coll.output %c rank 3 chunk 0
}
