// OwnedComm: a duplicate of a communicator that returns its errors, freed when it goes.
#pragma once

#include "runtime/backends/mpi/MpiError.h"
#include "runtime/backends/mpi/MpiQueues.h"

#include <mpi.h>

#include <string>

namespace collplan::mpi {

/// A duplicate of `comm` (collective over it) with MPI_ERRORS_RETURN, so an MPI failure on it
/// is a RuntimeError, not the user's error handler aborting the job; freed while MPI is active.
class OwnedComm {
public:
  /// `what` names the step for errors ("the mpi backend opening its job").
  OwnedComm(MPI_Comm comm, const char *what) {
    checkMpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup", [what] { return std::string(what); });
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~OwnedComm() {
    if (mpiActive()) MPI_Comm_free(&comm_);
  }
  OwnedComm(const OwnedComm &) = delete;
  OwnedComm &operator=(const OwnedComm &) = delete;
  MPI_Comm get() const { return comm_; }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace collplan::mpi
