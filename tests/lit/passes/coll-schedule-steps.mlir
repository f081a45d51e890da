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

// `own_steps`: the algorithm's steps are its order of the links, kept as given (the port model
// would give rank 0's two sends rounds 1 and 2; here they go at once, in step 0). An op without
// a step takes its operands' latest; the body is reordered by step.
// CHECK-LABEL: coll.schedule @own broadcast ranks 4 root 0 own_steps
// CHECK:      %[[X:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: %[[A:.*]] = coll.copy %[[X]] to rank 2 {step = 0 : i64}
// CHECK-NEXT: %[[B:.*]] = coll.copy %[[X]] to rank 1 {step = 0 : i64}
// CHECK:      coll.output %[[B]] rank 1 chunk 0
// CHECK-NEXT: %[[C:.*]] = coll.copy %[[A]] to rank 3 {step = 1 : i64}
coll.schedule @own broadcast ranks 4 root 0 own_steps {
  %x = coll.input rank 0 chunk 0
  %a = coll.copy %x to rank 2 {step = 0}
  %c = coll.copy %a to rank 3 {step = 1}
  %b = coll.copy %x to rank 1 {step = 0}
  coll.output %x rank 0 chunk 0
  coll.output %a rank 2 chunk 0
  coll.output %b rank 1 chunk 0
  coll.output %c rank 3 chunk 0
}
