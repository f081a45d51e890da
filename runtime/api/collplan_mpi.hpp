// collplan_mpi.hpp: the C++ API of MPI communicators (collplan_mpi.h) over collplan.hpp.
#pragma once

#include "collplan.hpp"
#include "collplan_mpi.h"

namespace collplan {

/// This process's communicator over the processes of `comm` (collplan_comm_create_mpi);
/// `bundle` may be null (built-in plans). Throws Error.
inline Comm mpiComm(MPI_Comm comm, const char *bundle = nullptr) {
  collplan_comm_t handle = nullptr;
  check(collplan_comm_create_mpi(comm, bundle, &handle));
  return Comm(handle);
}

}  // namespace collplan
