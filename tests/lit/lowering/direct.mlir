// direct: all-to-all in one round; the schedule is marked sends_first, so each rank's program
// posts its N-1 sends before its first receive.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-verify | FileCheck %s
// RUN: plan-compile -c alltoall -n 4 -a direct --emit program -o - | FileCheck %s --check-prefix=PROGRAM
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Every copy is in step 0: rank r sends its block for r + k, k = 1..N-1.
// CHECK-LABEL: coll.schedule @a2a alltoall ranks 3 algorithm "direct" sends_first
// CHECK: %[[OWN:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: coll.output %[[OWN]] rank 0 chunk 0
// CHECK: %[[B01:.*]] = coll.input rank 0 chunk 1
// CHECK-NEXT: %[[C01:.*]] = coll.copy %[[B01]] to rank 1 {step = 0 : i64}
// CHECK-NEXT: coll.output %[[C01]] rank 1 chunk 0
// CHECK: %[[B02:.*]] = coll.input rank 0 chunk 2
// CHECK-NEXT: coll.copy %[[B02]] to rank 2 {step = 0 : i64}
coll.collective @a2a alltoall ranks 3 algorithm "direct"

// The program: three sends, the rank's own block, then the receives in the order their senders
// post them.
// PROGRAM-LABEL: coll.program
// PROGRAM-SAME: sends_first
// PROGRAM:      coll.rank 0 {
// PROGRAM-NEXT:   coll.send in[1:2] -> send 1
// PROGRAM-NEXT:   coll.send in[2:3] -> send 2
// PROGRAM-NEXT:   coll.send in[3:4] -> send 3
// PROGRAM-NEXT:   coll.local_copy in[0:1] -> out[0:1]
// PROGRAM-NEXT:   coll.recv recv 3 {{.*}} -> out[3:4]
// PROGRAM-NEXT:   coll.recv recv 2 {{.*}} -> out[2:3]
// PROGRAM-NEXT:   coll.recv recv 1 {{.*}} -> out[1:2]

//--- errors.mlir
// expected-error @+1 {{algorithm 'direct' does not implement allgather (it implements: alltoall)}}
coll.collective @ag allgather ranks 4 algorithm "direct"
