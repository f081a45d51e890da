// What the mpi backend's tests ask of MPI_COMM_WORLD: its size and this process's rank.
#pragma once

#include <mpi.h>

namespace collplan::test {

inline int worldSize() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

inline int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

}  // namespace collplan::test
