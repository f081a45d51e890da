// MPI datatypes and ops mapped onto collplan's, with the reason when a call must fall back.
#include "runtime/pmpi/MpiTypes.h"

#include <array>

namespace collplan::pmpi {

std::string_view describe(Fallback why) {
  switch (why) {
    case Fallback::None: return "by collplan";
    case Fallback::Intercommunicator: return "intercommunicator";
    case Fallback::NoCommunicator: return "no collplan communicator";
    case Fallback::DerivedReductionType: return "reduction of a derived datatype";
    case Fallback::UnsupportedType: return "datatype collplan does not reduce";
    case Fallback::UserOp: return "user-defined op";
    case Fallback::UnsupportedOp: return "op collplan lacks";
    case Fallback::NonBlocking: return "non-blocking";
    case Fallback::InvalidArguments: return "invalid arguments";
    case Fallback::Disabled: return "COLLPLAN_MPI_DISABLE";
  }
  return "unknown";
}

bool isPredefined(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

size_t dataBytes(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return size_t(count < 0 ? 0 : count) * size_t(size < 0 ? 0 : size);
}

namespace {

/// A predefined integer type of `bytes` bytes as collplan's signed type of that width.
std::optional<collplan_dtype_t> signedOfWidth(int bytes) {
  if (bytes == 4) return COLLPLAN_I32;
  if (bytes == 8) return COLLPLAN_I64;
  return std::nullopt;
}

}  // namespace

Fallback reductionType(MPI_Datatype type, collplan_dtype_t &out) {
  if (!isPredefined(type)) return Fallback::DerivedReductionType;
  if (type == MPI_FLOAT) return out = COLLPLAN_F32, Fallback::None;
  if (type == MPI_DOUBLE) return out = COLLPLAN_F64, Fallback::None;
  if (type == MPI_UNSIGNED_CHAR || type == MPI_UINT8_T) return out = COLLPLAN_U8, Fallback::None;
  const std::array<MPI_Datatype, 6> signedIntegers = {MPI_INT,     MPI_LONG,    MPI_LONG_LONG,
                                                      MPI_INT32_T, MPI_INT64_T, MPI_LONG_LONG_INT};
  for (MPI_Datatype candidate : signedIntegers)
    if (type == candidate) {
      int size = 0;
      PMPI_Type_size(type, &size);
      if (std::optional<collplan_dtype_t> dtype = signedOfWidth(size))
        return out = *dtype, Fallback::None;
    }
  return Fallback::UnsupportedType;
}

Fallback reductionOp(MPI_Op op, collplan_op_t &out) {
  if (op == MPI_SUM) return out = COLLPLAN_SUM, Fallback::None;
  if (op == MPI_PROD) return out = COLLPLAN_PROD, Fallback::None;
  if (op == MPI_MIN) return out = COLLPLAN_MIN, Fallback::None;
  if (op == MPI_MAX) return out = COLLPLAN_MAX, Fallback::None;
  const std::array<MPI_Op, 10> predefined = {MPI_BAND, MPI_BOR,    MPI_BXOR,   MPI_LAND,
                                             MPI_LOR,  MPI_LXOR,   MPI_MAXLOC, MPI_MINLOC,
                                             MPI_REPLACE, MPI_NO_OP};
  for (MPI_Op candidate : predefined)
    if (op == candidate) return Fallback::UnsupportedOp;
  return Fallback::UserOp;
}

}  // namespace collplan::pmpi
