// MPI datatypes and reduction ops as collplan sees them: a collplan dtype and op, or the reason
// a call must stay with the MPI library.
#pragma once

#include "collplan.h"

#include <mpi.h>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace collplan::pmpi {

/// Why a call goes to the MPI library's own PMPI_ function instead of a collplan plan. Each is
/// decided from arguments that MPI requires to be the same on every rank (the communicator, a
/// reduction's datatype and op, the kind of call), so all ranks take the same path.
enum class Fallback {
  None,                 ///< collplan runs the call
  Intercommunicator,    ///< collplan communicators span one group
  NoCommunicator,       ///< collplan_comm_create_mpi failed on this communicator
  DerivedReductionType, ///< a reduction of a derived datatype (only user ops take those)
  UnsupportedType,      ///< a predefined datatype collplan does not reduce (MPI_SHORT, ...)
  UserOp,               ///< an op made by MPI_Op_create
  UnsupportedOp,        ///< a predefined op collplan lacks (MPI_BAND, MPI_MAXLOC, ...)
  NonBlocking,          ///< MPI_I* collectives (collplan calls block)
  InvalidArguments,     ///< a negative count or a root out of range: MPI reports the error
  Disabled,             ///< COLLPLAN_MPI_DISABLE=1
};
inline constexpr int kFallbackCount = int(Fallback::Disabled) + 1;

/// Fallback::InvalidArguments unless every count is >= 0 and `root` is a rank of a communicator
/// of `size` (the defaults stand for calls without a root).
inline Fallback checkArguments(std::initializer_list<int> counts, int root = 0, int size = 1) {
  for (int count : counts)
    if (count < 0) return Fallback::InvalidArguments;
  return root >= 0 && root < size ? Fallback::None : Fallback::InvalidArguments;
}

/// A short phrase for the report: "user-defined op".
std::string_view describe(Fallback why);

/// The collplan dtype of a predefined reduction datatype, or why there is none.
Fallback reductionType(MPI_Datatype type, collplan_dtype_t &out);
/// The collplan op of `op`, or why there is none.
Fallback reductionOp(MPI_Op op, collplan_op_t &out);

/// Whether `type` is a predefined (named) datatype: its elements lie contiguously, so the data
/// of `count` of them is the bytes at the buffer.
bool isPredefined(MPI_Datatype type);
/// Bytes of data in `count` elements of `type` (MPI_Type_size; its packed size).
size_t dataBytes(int count, MPI_Datatype type);

}  // namespace collplan::pmpi
