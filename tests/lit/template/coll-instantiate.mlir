// coll-instantiate turns a template into the schedule for one rank count: loops run, index
// arithmetic folds, tables of chunks resolve, and each op keeps the template op's place.
// RUN: coll-opt %s --coll-instantiate=ranks=3 | FileCheck %s
// RUN: coll-opt %s --coll-instantiate=ranks=6 --coll-verify | FileCheck %s --check-prefix=SIX
// RUN: coll-opt %s --coll-instantiate="ranks=4 op=max" | FileCheck %s --check-prefix=MAX

// A chain from rank 0 to the last rank, then the sum goes back to every rank directly.
// CHECK-LABEL: coll.schedule @chain allreduce ranks 3 op sum algorithm "chain"
// CHECK-SAME: attributes {coll.instance = "ranks=3"}
// CHECK: %[[A:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[X:.*]] = coll.copy %[[A]] to rank 1 {step = 0 : i64}
// CHECK: %[[B:.*]] = coll.input rank 1 chunk 0
// CHECK: %[[S:.*]] = coll.reduce %[[X]], %[[B]] at rank 1
// CHECK: %[[Y:.*]] = coll.copy %[[S]] to rank 2 {step = 1 : i64}
// CHECK: %[[C:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[T:.*]] = coll.reduce %[[Y]], %[[C]] at rank 2
// CHECK: coll.output %[[T]] rank 2 chunk 0
// CHECK: %[[D:.*]]:2 = coll.dup %[[T]] to ranks [0, 1]
// CHECK: coll.output %[[D]]#0 rank 0 chunk 0
// CHECK: coll.output %[[D]]#1 rank 1 chunk 0
// SIX: coll.schedule @chain allreduce ranks 6
// MAX: coll.schedule @chain allreduce ranks 4 op max
coll.template @chain allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = coll.tmpl.input rank %c0 chunk %c0
  %sum = scf.for %r = %c1 to %n step %c1 iter_args(%v = %first) -> (!coll.chunk) {
    %step = arith.subi %r, %c1 : index
    %x = coll.tmpl.copy %v to rank %r step %step
    %own = coll.tmpl.input rank %r chunk %c0
    %s = coll.tmpl.reduce %x, %own at rank %r
    scf.yield %s : !coll.chunk
  }
  %last = arith.subi %n, %c1 : index
  coll.tmpl.output %sum rank %last chunk %c0
  // The other ranks in one duplicated write when there are exactly two of them.
  %three = arith.constant 3 : index
  %isThree = arith.cmpi eq, %n, %three : index
  scf.if %isThree {
    %c2 = arith.constant 2 : index
    %copies:2 = coll.tmpl.dup %sum to ranks [%c0, %c1] : !coll.chunk, !coll.chunk
    coll.tmpl.output %copies#0 rank %c0 chunk %c0
    coll.tmpl.output %copies#1 rank %c1 chunk %c0
  } else {
    affine.for %r = 0 to affine_map<()[n] -> (n - 1)>()[%n] {
      %y = coll.tmpl.copy %sum to rank %r
      coll.tmpl.output %y rank %r chunk %c0
    }
  }
}

// A table of chunks: every rank's input gathered by index, bound in reverse.
// CHECK-LABEL: coll.schedule @reversed allgather ranks 3
// CHECK: %[[I0:.*]] = coll.input rank 0 chunk 0
// CHECK: %[[I1:.*]] = coll.input rank 1 chunk 0
// CHECK: %[[I2:.*]] = coll.input rank 2 chunk 0
// CHECK: %[[M:.*]] = coll.copy %[[I2]] to rank 0
// CHECK: coll.output %[[M]] rank 0 chunk 2
coll.template @reversed allgather params ["ranks"] {
^bb0(%n: index):
  %empty = tensor.empty(%n) : tensor<?x!coll.chunk>
  %all = affine.for %r = 0 to %n iter_args(%t = %empty) -> (tensor<?x!coll.chunk>) {
    %c0 = arith.constant 0 : index
    %x = coll.tmpl.input rank %r chunk %c0
    %t1 = tensor.insert %x into %t[%r] : tensor<?x!coll.chunk>
    affine.yield %t1 : tensor<?x!coll.chunk>
  }
  affine.for %to = 0 to %n {
    affine.for %k = 0 to %n {
      %from = affine.apply affine_map<(k)[n] -> (n - 1 - k)>(%k)[%n]
      %v = tensor.extract %all[%from] : tensor<?x!coll.chunk>
      %here = affine.if affine_set<(t, f) : (t - f == 0)>(%to, %from) -> !coll.chunk {
        affine.yield %v : !coll.chunk
      } else {
        %y = coll.tmpl.copy %v to rank %to
        affine.yield %y : !coll.chunk
      }
      coll.tmpl.output %here rank %to chunk %from
    }
  }
}
