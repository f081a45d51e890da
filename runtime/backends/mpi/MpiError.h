// MPI return codes as RuntimeError: the call, what it was for, and MPI_Error_string's text.
#pragma once

#include "runtime/exec/RuntimeError.h"

#include <string>

namespace collplan::mpi {

/// "MPI_Isend: message truncated" style text of `code` from `call`.
std::string mpiErrorText(const char *call, int code);

/// Throws RuntimeError(System) "<context()>: <call>: <MPI_Error_string>" when `code` is not
/// MPI_SUCCESS. `context` is only called on failure, so hot paths pay for a comparison.
template <typename Context>
inline void checkMpi(int code, const char *call, Context &&context) {
  if (code != 0 /* MPI_SUCCESS */)
    throw RuntimeError(ErrorCode::System, context() + ": " + mpiErrorText(call, code));
}

}  // namespace collplan::mpi
