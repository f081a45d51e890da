// The pattern ops (chains, exchanges, reductions at a rank, exact division, log2) and
// tensor.generate instantiate into the level-2 ops they stand for, in the order given.
// RUN: coll-opt %s | coll-opt | FileCheck %s --check-prefix=ROUND
// RUN: coll-opt %s --coll-instantiate=ranks=3 --coll-verify | FileCheck %s
// RUN: coll-opt %s --coll-instantiate=ranks=4 --coll-verify | FileCheck %s --check-prefix=FOUR

// ROUND: coll.tmpl.reduce_chain chunk %{{.*}} ranks #map(%{{.*}})[%{{.*}}] count %{{.*}}
// ROUND-NOT: operandSegmentSizes
// ROUND: coll.tmpl.copy_chain %{{.*}} ranks #map1(%{{.*}})[%{{.*}}] count %{{.*}} output chunk
// ROUND: coll.tmpl.reduce_chain %{{.*}}{{$}}

// A ring: chunk c reduced along c+1, ..., c, then passed on around with outputs.
// CHECK-LABEL: coll.schedule @ring allreduce ranks 3 chunks 3
// CHECK: %[[A:.*]] = coll.input rank 1 chunk 0
// CHECK-NEXT: %[[X:.*]] = coll.copy %[[A]] to rank 2
// CHECK-NEXT: %[[B:.*]] = coll.input rank 2 chunk 0
// CHECK-NEXT: %[[S:.*]] = coll.reduce %[[X]], %[[B]] at rank 2
// CHECK-NEXT: %[[Y:.*]] = coll.copy %[[S]] to rank 0
// CHECK-NEXT: %[[C:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: %[[T:.*]] = coll.reduce %[[Y]], %[[C]] at rank 0
// CHECK-NEXT: coll.output %[[T]] rank 0 chunk 0
// CHECK-NEXT: %[[Z:.*]] = coll.copy %[[T]] to rank 1
// CHECK-NEXT: coll.output %[[Z]] rank 1 chunk 0
// CHECK-NEXT: %[[W:.*]] = coll.copy %[[Z]] to rank 2
// CHECK-NEXT: coll.output %[[W]] rank 2 chunk 0
#next = affine_map<(k, c)[n] -> ((c + k + 1) mod n)>
#from = affine_map<(k, c)[n] -> ((c + k) mod n)>
coll.template @ring allreduce params ["ranks"] {
^bb0(%n: index):
  coll.tmpl.chunks %n
  affine.for %c = 0 to %n {
    %sum = coll.tmpl.reduce_chain chunk %c ranks #next(%c)[%n] count %n
    %all = coll.tmpl.copy_chain %sum ranks #from(%c)[%n] count %n output chunk %c
  }
}

// Every rank's input gathered and reduced at each rank in table order (one shot); the table
// form of reduce_chain folds the inputs along ranks 0, 1, 2 into a second chunk.
// CHECK-LABEL: coll.schedule @shot allreduce ranks 3 op sum
// CHECK: %[[I0:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: %[[I1:.*]] = coll.input rank 1 chunk 0
// CHECK-NEXT: %[[I2:.*]] = coll.input rank 2 chunk 0
// CHECK-NEXT: %[[C1:.*]] = coll.copy %[[I1]] to rank 0
// CHECK-NEXT: %[[C2:.*]] = coll.copy %[[I2]] to rank 0
// CHECK-NEXT: %[[R0:.*]] = coll.reduce %[[I0]], %[[C1]], %[[C2]] at rank 0
// CHECK-NEXT: coll.output %[[R0]] rank 0 chunk 0
// CHECK: %[[D0:.*]] = coll.copy %[[I0]] to rank 1
// CHECK-NEXT: %[[D2:.*]] = coll.copy %[[I2]] to rank 1
// CHECK-NEXT: coll.reduce %[[D0]], %[[I1]], %[[D2]] at rank 1
coll.template @shot allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %inputs = tensor.generate %n {
  ^bb0(%r: index):
    %x = coll.tmpl.input rank %r chunk %c0
    tensor.yield %x : !coll.chunk
  } : tensor<?x!coll.chunk>
  affine.for %r = 0 to %n {
    %sum = coll.tmpl.reduce_to %inputs rank %r
    coll.tmpl.output %sum rank %r chunk %c0
  }
}

// A butterfly over the largest power of two: log2(3) = 1 round, entry i with i xor 1, the
// lower entry first on both sides; rank 2 only sends its input to rank 0 and gets the sum.
// CHECK-LABEL: coll.schedule @butterfly allreduce ranks 3
// CHECK: %[[E0:.*]] = coll.input rank 2 chunk 0
// CHECK-NEXT: %[[F:.*]] = coll.copy %[[E0]] to rank 0
// CHECK-NEXT: %[[O0:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: %[[G0:.*]] = coll.reduce %[[F]], %[[O0]] at rank 0
// CHECK-NEXT: %[[G1:.*]] = coll.input rank 1 chunk 0
// CHECK-NEXT: %[[X0:.*]] = coll.copy %[[G1]] to rank 0 {step = 0 : i64}
// CHECK-NEXT: %[[S0:.*]] = coll.reduce %[[G0]], %[[X0]] at rank 0 {step = 0 : i64}
// CHECK-NEXT: %[[X1:.*]] = coll.copy %[[G0]] to rank 1 {step = 0 : i64}
// CHECK-NEXT: %[[S1:.*]] = coll.reduce %[[X1]], %[[G1]] at rank 1 {step = 0 : i64}
// CHECK: %[[U:.*]] = coll.copy %[[S0]] to rank 2
// CHECK-NEXT: coll.output %[[U]] rank 2 chunk 0
// FOUR-LABEL: coll.schedule @butterfly allreduce ranks 4
// FOUR-COUNT-8: {step = {{[01]}} : i64}
#len = affine_map<(r)[p, n] -> ((n - 1 - r) floordiv p + 1)>
#fold = affine_map<(k, r)[p, len] -> (r + (len - 1 - k) * p)>
#unfold = affine_map<(k, r)[p] -> (r + k * p)>
#xor = affine_map<(i)[d] -> (i + d - ((i floordiv d) mod 2) * d * 2)>
coll.template @butterfly allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rounds = coll.tmpl.log2 %n
  %p = arith.shli %c1, %rounds : index
  %folded = tensor.generate %p {
  ^bb0(%r: index):
    %len = affine.apply #len(%r)[%p, %n]
    %v = coll.tmpl.reduce_chain chunk %c0 ranks #fold(%r)[%p, %len] count %len
    tensor.yield %v : !coll.chunk
  } : tensor<?x!coll.chunk>
  %sums = affine.for %k = 0 to %rounds iter_args(%t = %folded) -> (tensor<?x!coll.chunk>) {
    %d = arith.shli %c1, %k : index
    %u = coll.tmpl.exchange %t partner #xor()[%d] step %k
    affine.yield %u : tensor<?x!coll.chunk>
  }
  affine.for %r = 0 to %p {
    %v = tensor.extract %sums[%r] : tensor<?x!coll.chunk>
    %len = affine.apply #len(%r)[%p, %n]
    %all = coll.tmpl.copy_chain %v ranks #unfold(%r)[%p] count %len output chunk %c0
  }
}

// The table form of reduce_chain folds the entries in order along their ranks; divide gives
// N / N = 1 chunk.
// CHECK-LABEL: coll.schedule @fold allreduce ranks 3 op sum
// CHECK: %[[I0:.*]] = coll.input rank 0 chunk 0
// CHECK-NEXT: %[[I1:.*]] = coll.input rank 1 chunk 0
// CHECK-NEXT: %[[I2:.*]] = coll.input rank 2 chunk 0
// CHECK-NEXT: %[[M1:.*]] = coll.copy %[[I0]] to rank 1
// CHECK-NEXT: %[[S1:.*]] = coll.reduce %[[M1]], %[[I1]] at rank 1
// CHECK-NEXT: %[[M2:.*]] = coll.copy %[[S1]] to rank 2
// CHECK-NEXT: %[[S2:.*]] = coll.reduce %[[M2]], %[[I2]] at rank 2
// CHECK-NEXT: coll.output %[[S2]] rank 2 chunk 0
#down = affine_map<(k)[n] -> ((n - 1 + k) mod n)>
coll.template @fold allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %one = coll.tmpl.divide %n, %n, "N divides N"
  coll.tmpl.chunks %one
  %inputs = tensor.generate %n {
  ^bb0(%r: index):
    %x = coll.tmpl.input rank %r chunk %c0
    tensor.yield %x : !coll.chunk
  } : tensor<?x!coll.chunk>
  %sum = coll.tmpl.reduce_chain %inputs
  %all = coll.tmpl.copy_chain %sum ranks #down()[%n] count %n output chunk %c0
}
