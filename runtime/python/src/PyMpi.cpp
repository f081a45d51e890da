// collplan.mpi_communicator: this process's rank of MPI_COMM_WORLD on the mpi backend.
#include "PyMpi.h"

#include "PyComm.h"

#ifdef COLLPLAN_PY_MPI
#include "collplan_mpi.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#endif

namespace collplan::python {

#ifdef COLLPLAN_PY_MPI
namespace {

/// Initialises MPI when the program has not (finalising it at exit), as mpi4py does.
void ensureMpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw Error(COLLPLAN_ERROR_SYSTEM, "MPI_Init_thread failed");
  std::atexit([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  });
}

std::shared_ptr<PyComm> mpiCommunicator(const std::optional<std::string> &bundle) {
  ensureMpi();
  return std::make_shared<PyComm>(nullptr, mpiComm(MPI_COMM_WORLD, bundle ? bundle->c_str() : nullptr));
}

}  // namespace
#endif

void bindMpi(pybind11::module_ &m) {
#ifdef COLLPLAN_PY_MPI
  m.def("mpi_communicator", &mpiCommunicator, pybind11::arg("bundle") = pybind11::none(),
        "This process's rank of MPI_COMM_WORLD on the mpi backend (run under mpirun); "
        "initialises MPI if the program has not");
#else
  (void)m;
#endif
}

}  // namespace collplan::python
