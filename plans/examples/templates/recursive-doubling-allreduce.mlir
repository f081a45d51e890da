// Recursive doubling allreduce for every N: ranks r + p (p = 2^floor(log2 N)) fold into rank r,
// entry i exchanges with i xor 2^k in round k (lower entry first); folded ranks get the sum.
#len = affine_map<(r)[p, n] -> ((n - 1 - r) floordiv p + 1)>
#fold = affine_map<(k, r)[p, len] -> (r + (len - 1 - k) * p)>
#unfold = affine_map<(k, r)[p] -> (r + k * p)>
#xor = affine_map<(i)[d] -> (i + d - ((i floordiv d) mod 2) * d * 2)>
coll.template @recursive_doubling_allreduce allreduce params ["ranks"] {
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
