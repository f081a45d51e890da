// mpiErrorText: MPI_Error_string for a failed call.
#include "runtime/backends/mpi/MpiError.h"

#include <mpi.h>

static_assert(MPI_SUCCESS == 0, "checkMpi compares with 0");

namespace collplan::mpi {

std::string mpiErrorText(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return std::string(call) + " failed with MPI error " + std::to_string(code);
  return std::string(call) + ": " + std::string(text, size_t(length));
}

}  // namespace collplan::mpi
