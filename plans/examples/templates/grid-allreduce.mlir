// 2D-grid allreduce for rows x cols = N (rank = row * cols + col): chunk j is reduced along each
// row to column j, then down column j to the last row; the sum goes back up column j and
// along every row.
#row = affine_map<(k, i, j)[cols] -> (i * cols + (j + k + 1) mod cols)>
#up = affine_map<(k, j)[rows, cols] -> (((rows - 1 + k) mod rows) * cols + j)>
#back = affine_map<(k, m, j)[rows, cols] -> (((rows - 1 + m) mod rows) * cols + (j + k) mod cols)>
coll.template @grid_allreduce allreduce params ["ranks", "rows"] attributes {defaults = {rows = 2}, tune = {rows = [2, 4, 8]}} {
^bb0(%n: index, %rows: index):
  %cols = coll.tmpl.divide %n, %rows, "rows must divide the rank count"
  coll.tmpl.chunks %cols
  affine.for %j = 0 to %cols {
    %sums = tensor.generate %rows {
    ^bb0(%i: index):
      %s = coll.tmpl.reduce_chain chunk %j ranks #row(%i, %j)[%cols] count %cols
      tensor.yield %s : !coll.chunk
    } : tensor<?x!coll.chunk>
    %total = coll.tmpl.reduce_chain %sums
    %column = coll.tmpl.copy_chain %total ranks #up(%j)[%rows, %cols] count %rows
    affine.for %m = 0 to %rows {
      %v = tensor.extract %column[%m] : tensor<?x!coll.chunk>
      %all = coll.tmpl.copy_chain %v ranks #back(%m, %j)[%rows, %cols] count %cols output chunk %j
    }
  }
}
