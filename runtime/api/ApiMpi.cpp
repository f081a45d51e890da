// collplan_comm_create_mpi (collplan_mpi.h): a communicator, with a world of its own, over the
// processes of an MPI communicator.
#include "collplan_mpi.h"

#include "runtime/api/ApiHandles.h"
#include "runtime/exec/RuntimeError.h"

namespace collplan {
namespace {

/// The size and this process's rank of `comm`, checked before the backend uses it.
std::pair<int, int> shapeOf(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       finalized ? "MPI was finalised: create communicators before MPI_Finalize"
                                 : "MPI is not initialised: call MPI_Init first");
  if (comm == MPI_COMM_NULL) throw RuntimeError(ErrorCode::InvalidArgument, "comm is MPI_COMM_NULL");
  int ranks = 0, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  return {ranks, rank};
}

}  // namespace
}  // namespace collplan

extern "C" collplan_status_t collplan_comm_create_mpi(MPI_Comm comm, const char *bundle_path,
                                                      collplan_comm_t *out) {
  using namespace collplan;
  return api::guardedCall("collplan_comm_create_mpi", [&] {
    if (!out) throw RuntimeError(ErrorCode::NullPointer, "out is NULL");
    *out = nullptr;
    const auto [ranks, rank] = shapeOf(comm);
    WorldConfig config;
    config.backend = std::string(mpiBackend().name());
    config.ranks = ranks;
    config.rank = rank;
    if (bundle_path) config.bundleFile = bundle_path;
    config.native = &comm;
    *out = api::adoptWorld(std::make_unique<WorldImpl>(config), rank);
  });
}
