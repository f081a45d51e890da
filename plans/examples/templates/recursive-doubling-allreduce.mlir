// Recursive doubling allreduce for every N: with p the largest power of two <= N, rank p + e
// folds into rank e first; in round k, rank r < p exchanges with r xor 2^k and both reduce the
// lower rank's value first; the folded ranks get the sum last.
#extra = affine_set<(r)[p, n] : (n - p - r - 1 >= 0)>
#partner = affine_map<(r)[p] -> (r + p)>
coll.template @recursive_doubling_allreduce allreduce params ["ranks"] {
^bb0(%n: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = affine.for %k = 0 to 62 iter_args(%q = %c1) -> (index) {
    %twice = arith.shli %q, %c1 : index
    %fits = arith.cmpi ule, %twice, %n : index
    %next = arith.select %fits, %twice, %q : index
    affine.yield %next : index
  }
  %none = tensor.empty(%p) : tensor<?x!coll.chunk>
  %folded = affine.for %r = 0 to %p iter_args(%t = %none) -> (tensor<?x!coll.chunk>) {
    %own = coll.tmpl.input rank %r chunk %c0
    %v = affine.if #extra(%r)[%p, %n] -> !coll.chunk {
      %e = affine.apply #partner(%r)[%p]
      %x = coll.tmpl.input rank %e chunk %c0
      %y = coll.tmpl.copy %x to rank %r
      %s = coll.tmpl.reduce %own, %y at rank %r
      affine.yield %s : !coll.chunk
    } else {
      affine.yield %own : !coll.chunk
    }
    %t1 = tensor.insert %v into %t[%r] : tensor<?x!coll.chunk>
    affine.yield %t1 : tensor<?x!coll.chunk>
  }
  %sums = affine.for %k = 0 to 62 iter_args(%t = %folded) -> (tensor<?x!coll.chunk>) {
    %d = arith.shli %c1, %k : index
    %active = arith.cmpi ult, %d, %p : index
    %next = scf.if %active -> (tensor<?x!coll.chunk>) {
      %u = affine.for %r = 0 to %p iter_args(%w = %t) -> (tensor<?x!coll.chunk>) {
        %q = arith.xori %r, %d : index
        %mine = tensor.extract %t[%r] : tensor<?x!coll.chunk>
        %theirs = tensor.extract %t[%q] : tensor<?x!coll.chunk>
        %x = coll.tmpl.copy %theirs to rank %r step %k
        %lower = arith.cmpi ult, %r, %q : index
        %a = arith.select %lower, %mine, %x : !coll.chunk
        %b = arith.select %lower, %x, %mine : !coll.chunk
        %s = coll.tmpl.reduce %a, %b at rank %r
        %w1 = tensor.insert %s into %w[%r] : tensor<?x!coll.chunk>
        affine.yield %w1 : tensor<?x!coll.chunk>
      }
      scf.yield %u : tensor<?x!coll.chunk>
    } else {
      scf.yield %t : tensor<?x!coll.chunk>
    }
    affine.yield %next : tensor<?x!coll.chunk>
  }
  affine.for %r = 0 to %p {
    %v = tensor.extract %sums[%r] : tensor<?x!coll.chunk>
    coll.tmpl.output %v rank %r chunk %c0
    affine.if #extra(%r)[%p, %n] {
      %e = affine.apply #partner(%r)[%p]
      %w = coll.tmpl.copy %v to rank %e
      coll.tmpl.output %w rank %e chunk %c0
    }
  }
}
