// 2D-grid allreduce for rows x cols = N (rank = row * cols + col): chunk j is reduced along each
// row to column j, then down column j to the last row; the sum goes back up column j and
// along every row.
#along = affine_map<(i, j, k)[cols] -> (i * cols + (j + k) mod cols)>
#up = affine_map<(m, j)[rows, cols] -> (((rows - 1 + m) mod rows) * cols + j)>
coll.template @grid_allreduce allreduce params ["ranks", "rows"] attributes {defaults = {rows = 2}, tune = {rows = [2, 4, 8]}} {
^bb0(%n: index, %rows: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = affine.apply affine_map<()[n, rows] -> (n floordiv rows)>()[%n, %rows]
  %rest = affine.apply affine_map<()[n, rows] -> (n mod rows)>()[%n, %rows]
  %ok = arith.cmpi eq, %rest, %c0 : index
  coll.tmpl.require %ok, "rows must divide the rank count"
  coll.tmpl.chunks %cols
  affine.for %j = 0 to %cols {
    %none = tensor.empty(%rows) : tensor<?x!coll.chunk>
    %sums = affine.for %i = 0 to %rows iter_args(%t = %none) -> (tensor<?x!coll.chunk>) {
      %r0 = affine.apply #along(%i, %j, %c1)[%cols]
      %x0 = coll.tmpl.input rank %r0 chunk %j
      %s = affine.for %k = 2 to affine_map<()[c] -> (c + 1)>()[%cols]
          iter_args(%v = %x0) -> (!coll.chunk) {
        %r = affine.apply #along(%i, %j, %k)[%cols]
        %x = coll.tmpl.copy %v to rank %r
        %own = coll.tmpl.input rank %r chunk %j
        %y = coll.tmpl.reduce %x, %own at rank %r
        affine.yield %y : !coll.chunk
      }
      %t1 = tensor.insert %s into %t[%i] : tensor<?x!coll.chunk>
      affine.yield %t1 : tensor<?x!coll.chunk>
    }
    %first = tensor.extract %sums[%c0] : tensor<?x!coll.chunk>
    %total = affine.for %i = 1 to %rows iter_args(%v = %first) -> (!coll.chunk) {
      %r = affine.apply #along(%i, %j, %c0)[%cols]
      %x = coll.tmpl.copy %v to rank %r
      %row = tensor.extract %sums[%i] : tensor<?x!coll.chunk>
      %y = coll.tmpl.reduce %x, %row at rank %r
      affine.yield %y : !coll.chunk
    }
    %end = affine.for %m = 0 to %rows iter_args(%u = %total) -> (!coll.chunk) {
      %here = affine.apply #up(%m, %j)[%rows, %cols]
      %at = affine.if affine_set<(m) : (m - 1 >= 0)>(%m) -> !coll.chunk {
        %y = coll.tmpl.copy %u to rank %here
        affine.yield %y : !coll.chunk
      } else {
        affine.yield %u : !coll.chunk
      }
      coll.tmpl.output %at rank %here chunk %j
      %i = affine.apply affine_map<(m)[rows] -> ((rows - 1 + m) mod rows)>(%m)[%rows]
      %last = affine.for %k = 1 to %cols iter_args(%w = %at) -> (!coll.chunk) {
        %r = affine.apply #along(%i, %j, %k)[%cols]
        %y = coll.tmpl.copy %w to rank %r
        coll.tmpl.output %y rank %r chunk %j
        affine.yield %y : !coll.chunk
      }
      affine.yield %at : !coll.chunk
    }
  }
}
