// bruck: all-to-all in ceil(log2 N) rounds. In round k every rank copies the blocks whose
// distance to their destination has bit k set side by side (a pack), then copies them on to
// rank r + 2^k; level 3 sends each round's pack as one message.
// RUN: split-file --leading-lines %s %t
// RUN: coll-opt %t/lower.mlir --coll-lower --coll-verify | FileCheck %s
// RUN: plan-compile -c alltoall -n 4 -a bruck --emit program -o - | FileCheck %s --check-prefix=PROGRAM
// RUN: coll-opt %t/errors.mlir --coll-lower -verify-diagnostics

//--- lower.mlir
// Round 0, rank 0: its blocks for ranks 1 and 3 (distances 1 and 3) are packed, then go to
// rank 1. Round 1: its block for rank 2 and the one rank 3 relayed for rank 2 go to rank 2.
// CHECK-LABEL: coll.schedule @a2a alltoall ranks 4 algorithm "bruck"
// CHECK: %[[B01:.*]] = coll.input rank 0 chunk 1
// CHECK-NEXT: %[[B02:.*]] = coll.input rank 0 chunk 2
// CHECK-NEXT: %[[B03:.*]] = coll.input rank 0 chunk 3
// CHECK: %[[P01:.*]] = coll.copy %[[B01]] to rank 0 {step = 0 : i64}
// CHECK-NEXT: %[[P03:.*]] = coll.copy %[[B03]] to rank 0 {step = 0 : i64}
// CHECK-NEXT: coll.copy %[[P01]] to rank 1 {step = 0 : i64}
// CHECK-NEXT: coll.copy %[[P03]] to rank 1 {step = 0 : i64}
// CHECK: coll.copy %{{.*}} to rank 0 {step = 0 : i64}
// CHECK-NEXT: %[[FROM3:.*]] = coll.copy %{{.*}} to rank 0 {step = 0 : i64}
// CHECK: %[[P02:.*]] = coll.copy %[[B02]] to rank 0 {step = 1 : i64}
// CHECK-NEXT: %[[R32:.*]] = coll.copy %[[FROM3]] to rank 0 {step = 1 : i64}
// CHECK-NEXT: coll.copy %[[P02]] to rank 2 {step = 1 : i64}
// CHECK-NEXT: coll.copy %[[R32]] to rank 2 {step = 1 : i64}
coll.collective @a2a alltoall ranks 4 algorithm "bruck"

// The program: two messages per rank, each a pack of two blocks; what arrives for rank 0
// itself is unpacked into out.
// PROGRAM-LABEL: coll.program
// PROGRAM:      coll.rank 0 {
// PROGRAM-NEXT:   coll.local_copy in[0:1] -> out[0:1]
// PROGRAM-NEXT:   coll.local_copy in[1:2] -> tmp[0:1]
// PROGRAM-NEXT:   coll.local_copy in[3:4] -> tmp[1:2]
// PROGRAM-NEXT:   coll.local_copy in[2:3] -> tmp[2:3]
// PROGRAM-NEXT:   coll.send tmp[0:2] -> send 1
// PROGRAM-NEXT:   coll.recv recv 3 {{.*}} -> tmp[0:2]
// PROGRAM-NEXT:   coll.local_copy tmp[0:1] -> out[3:4]
// PROGRAM-NEXT:   coll.local_copy tmp[1:2] -> tmp[3:4]
// PROGRAM-NEXT:   coll.send tmp[2:4] -> send 2
// PROGRAM-NEXT:   coll.recv recv 2 {{.*}} -> tmp[0:2]
// PROGRAM-NEXT:   coll.local_copy tmp[0:2] -> out[1:3] {{.*}}
// PROGRAM-NEXT: {{^ *}}}

//--- errors.mlir
// expected-error @+1 {{algorithm 'bruck' does not implement allgather (it implements: alltoall)}}
coll.collective @ag allgather ranks 4 algorithm "bruck"
