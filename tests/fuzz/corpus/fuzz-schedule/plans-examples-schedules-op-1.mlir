// Ring allreduce on 4 ranks: chunk c is reduced along c+1, c+2, ..., c and then circulated.
coll.schedule @ring_allreduce_4 allreduce ranks 4 chunks 4 op sum algorithm "ring" {
  %in_0_0 = coll.input rank 0 chunk 0
  %in_0_1 = coll.input rank 0 chunk 1
  %in_0_2 = coll.input rank 0 chunk 2
  %in_0_3 = coll.input rank 0 chunk 3
  %in_1_0 = coll.input rank 1 chunk 0
  %in_1_1 = coll.input rank 1 chunk 1
  %in_1_2 = coll.input rank 1 chunk 2
  %in_1_3 = coll.input rank 1 chunk 3
  %in_2_0 = coll.input rank 2 chunk 0
  %in_2_1 = coll.input rank 2 chunk 1
  %in_2_2 = coll.input rank 2 chunk 2
  %in_2_3 = coll.input rank 2 chunk 3
  %in_3_0 = coll.input rank 3 chunk 0
  %in_3_1 = coll.input rank 3 chunk 1
  %in_3_2 = coll.input rank 3 chunk 2
  %in_3_3 = coll.input rank 3 chunk 3
  %x_0_1 = coll.copy %in_1_0 to rank 2
  %s_0_1 = coll.reduce %x_0_1, %in_2_0 at rank 2
  %x_0_2 = coll.copy %s_0_1 to rank 3
  %s_0_2 = coll.reduce %x_0_2, %in_3_0 at rank 3
  %x_0_3 = coll.copy %s_0_2 to rank 0
  %s_0_3 = coll.reduce %x_0_3, %in_0_0 at rank 0
  coll.output %s_0_3 rank 0 chunk 0
  %y_0_1 = coll.copy %s_0_3 to rank 1
  coll.output %y_0_1 rank 1 chunk 0
  %y_0_2 = coll.copy %y_0_1 to rank 2
  coll.output %y_0_2 rank 2 chunk 0
  %y_0_3 = coll.copy %y_0_2 to rank 3
  coll.output %y_0_3 rank 3 chunk 0
  %x_1_1 = coll.copy %in_2_1 to rank 3
  %s_1_1 = coll.reduce %x_1_1, %in_3_1 at rank 3
  %x_1_2 = coll.copy %s_1_1 to rank 0
  %s_1_2 = coll.reduce %x_1_2, %in_0_1 at rank 0
  %x_1_3 = coll.copy %s_1_2 to rank 1
  %s_1_3 = coll.reduce %x_1_3, %in_1_1 at rank 1
  coll.output %s_1_3 rank 1 chunk 1
  %y_1_1 = coll.copy %s_1_3 to rank 2
  coll.output %y_1_1 rank 2 chunk 1
  %y_1_2 = coll.copy %y_1_1 to rank 3
  coll.output %y_1_2 rank 3 chunk 1
  %y_1_3 = coll.copy %y_1_2 to rank 0
  coll.output %y_1_3 rank 0 chunk 1
  %x_2_1 = coll.copy %in_3_2 to rank 0
  %s_2_1 = coll.reduce %x_2_1, %in_0_2 at rank 0
  %x_2_2 = coll.copy %s_2_1 to rank 1
  %s_2_2 = coll.reduce %x_2_2, %in_1_2 at rank 1
  %x_2_3 = coll.copy %s_2_2 to rank 2
  %s_2_3 = coll.reduce %x_2_3, %in_2_2 at rank 2
  coll.output %s_2_3 rank 2 chunk 2
  %y_2_1 = coll.copy %s_2_3 to rank 3
  coll.output %y_2_1 rank 3 chunk 2
  %y_2_2 = coll.copy %y_2_1 to rank 0
  coll.output %y_2_2 rank 0 chunk 2
  %y_2_3 = coll.copy %y_2_2 to rank 1
  coll.output %y_2_3 rank 1 chunk 2
  %x_3_1 = coll.copy %in_0_3 to rank 1
  %s_3_1 = coll.reduce %x_3_1, %in_1_3 at rank 1
  %x_3_2 = coll.copy %s_3_1 to rank 2
  %s_3_2 = coll.reduce %x_3_2, %in_2_3 at rank 2
  %x_3_3 = coll.copy %s_3_2 to rank 3
  %s_3_3 = coll.reduce %x_3_3, %in_3_3 at rank 3
  coll.output %s_3_3 rank 3 chunk 3
  %y_3_1 = coll.copy %s_3_3 to rank 0
  coll.output %y_3_1 rank 0 chunk 3
  %y_3_2 = coll.copy %y_3_1 to rank 1
  coll.output %y_3_2 rank 1 chunk 3
  %y_3_3 = coll.copy %y_3_2 to rank 2
  coll.output %y_3_3 rank 2 chunk 3
}
