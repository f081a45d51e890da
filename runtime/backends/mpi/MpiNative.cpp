// MpiNative: collplan's collectives, dtypes and reduction ops mapped onto MPI's calls.
#include "runtime/backends/mpi/MpiNative.h"

#include "runtime/backends/mpi/MpiError.h"

#include <mpi.h>

#include <climits>
#include <stdexcept>

namespace collplan::mpi {
namespace {

MPI_Datatype mpiType(DType dtype) {
  switch (dtype) {
  case DType::F32: return MPI_FLOAT;
  case DType::F64: return MPI_DOUBLE;
  case DType::I32: return MPI_INT32_T;
  case DType::I64: return MPI_INT64_T;
  case DType::U8: return MPI_UINT8_T;
  default: return MPI_DATATYPE_NULL;  // f16, bf16: no MPI type
  }
}

MPI_Op mpiOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum: return MPI_SUM;
  case ReduceOp::Prod: return MPI_PROD;
  case ReduceOp::Min: return MPI_MIN;
  case ReduceOp::Max: return MPI_MAX;
  }
  return MPI_SUM;
}

class MpiCollectives final : public NativeCollectives {
public:
  std::string functionName(CollectiveKind kind) const override {
    return std::string(mpiFunctionName(kind));
  }

  void check(CollectiveKind kind, DType dtype) const override {
    if (kind != CollectiveKind::Barrier && mpiType(dtype) == MPI_DATATYPE_NULL)
      throw std::invalid_argument(functionName(kind) + " has no " + std::string(toString(dtype)) +
                                  " type (MPI has no 16-bit floating point types)");
  }

  void run(CollectiveKind kind, const CallBuffers &call, int root) const override {
    const MPI_Comm w = MPI_COMM_WORLD;
    const MPI_Datatype t = mpiType(call.dtype);
    if (call.count > size_t(INT_MAX))
      throw RuntimeError(ErrorCode::Unsupported, functionName(kind) + ": a count of " +
                                                     std::to_string(call.count) +
                                                     " is more than MPI's int counts hold");
    const int n = int(call.count);
    void *in = const_cast<void *>(call.in), *out = call.out;
    int code = MPI_SUCCESS;
    switch (kind) {
    case CollectiveKind::AllReduce: code = MPI_Allreduce(in, out, n, t, mpiOp(call.op), w); break;
    case CollectiveKind::AllGather: code = MPI_Allgather(in, n, t, out, n, t, w); break;
    case CollectiveKind::ReduceScatter:
      code = MPI_Reduce_scatter_block(in, out, n, t, mpiOp(call.op), w);
      break;
    case CollectiveKind::AllToAll: code = MPI_Alltoall(in, n, t, out, n, t, w); break;
    case CollectiveKind::Broadcast: {
      int rank = 0;
      MPI_Comm_rank(w, &rank);
      code = MPI_Bcast(rank == root ? in : out, n, t, root, w);
      break;
    }
    case CollectiveKind::Reduce: code = MPI_Reduce(in, out, n, t, mpiOp(call.op), root, w); break;
    case CollectiveKind::Gather: code = MPI_Gather(in, n, t, out, n, t, root, w); break;
    case CollectiveKind::Scatter: code = MPI_Scatter(in, n, t, out, n, t, root, w); break;
    case CollectiveKind::Barrier: code = MPI_Barrier(w); break;
    }
    checkMpi(code, functionName(kind).c_str(), [] { return std::string("the MPI baseline"); });
  }
};

}  // namespace

const NativeCollectives &mpiNativeCollectives() {
  static const MpiCollectives collectives;
  return collectives;
}

}  // namespace collplan::mpi
