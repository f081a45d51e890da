// GroupTransport: what a process group's collplan communicator runs on: a cpu-shm job (ranks on
// one machine), or the mpi backend when the processes are MPI ranks (launched by mpirun).
#pragma once

#include "collplan.hpp"
#include "runtime/torch/ShmRendezvous.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <optional>
#include <string>

namespace collplan::distributed {

/// One rank's communicator of a process group and what it stands on. Members are destroyed
/// in reverse order: the communicator before its world.
struct GroupComm {
  std::string transport;             ///< "cpu-shm" or "mpi"
  ShmJob job;                        ///< cpu-shm: the group's job; mpi: empty
  std::optional<collplan::World> world;  ///< cpu-shm: this rank's world; mpi: none (the comm owns it)
  collplan::Comm comm;
};

/// The transport a new group takes: COLLPLAN_TORCH_TRANSPORT ("cpu-shm" or "mpi") when set,
/// else "mpi" where this build has the mpi backend and the process was started by an MPI
/// launcher (Open MPI's or MPICH's environment), else "cpu-shm". Throws on another value, and
/// on "mpi" in a build without MPI.
std::string chooseTransport();

/// Joins the group: on cpu-shm through the job its rank 0 publishes in `store`; on mpi through
/// an MPI communicator of the group's processes (each publishes its MPI_COMM_WORLD rank in
/// `store`), initialising MPI (MPI_THREAD_MULTIPLE: the group's calls run on its worker thread)
/// when the program has not. COLLPLAN_BUNDLE and COLLPLAN_TOPOLOGY apply to both.
GroupComm openGroup(c10d::Store &store, int rank, int size);

}  // namespace collplan::distributed
