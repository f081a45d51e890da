// MpiNative: MPI's own collectives on the processes of an mpi launch, the baseline plan-bench
// times beside collplan's plans.
#pragma once

#include "runtime/backends/Backend.h"

namespace collplan::mpi {

/// MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Bcast, MPI_Reduce,
/// MPI_Gather, MPI_Scatter and MPI_Barrier on MPI_COMM_WORLD (what mpi launches run on), with
/// collplan's buffer conventions: counts per rank block, the root's broadcast data in `in`.
const NativeCollectives &mpiNativeCollectives();

}  // namespace collplan::mpi
