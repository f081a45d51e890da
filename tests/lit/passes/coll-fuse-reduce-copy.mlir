// coll-fuse-reduce-copy turns reduce + its only copy into one reduce_send.
// RUN: coll-opt %s --coll-fuse-reduce-copy --coll-verify | FileCheck %s

// CHECK-LABEL: coll.schedule @chain
coll.schedule @chain reduce ranks 3 op sum root 2 {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %x = coll.copy %a to rank 1
  // CHECK-NOT: coll.reduce %{{.*}} at rank 1
  // CHECK: %[[S:.*]] = coll.reduce_send %{{.*}}, %{{.*}} at rank 1 to rank 2 {step = 1 : i64}
  %s = coll.reduce %x, %b at rank 1
  %y = coll.copy %s to rank 2 {step = 1}
  // CHECK: coll.reduce %[[S]], %{{.*}} at rank 2
  %r = coll.reduce %y, %c at rank 2
  coll.output %r rank 2 chunk 0
}

// A reduce with another use keeps its own result.
// CHECK-LABEL: coll.schedule @kept
coll.schedule @kept allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %a to rank 1
  // CHECK: %[[S:.*]] = coll.reduce %{{.*}}, %{{.*}} at rank 1
  %s = coll.reduce %x, %b at rank 1
  // CHECK: coll.copy %[[S]] to rank 0
  %y = coll.copy %s to rank 0
  coll.output %s rank 1 chunk 0
  coll.output %y rank 0 chunk 0
}
