// The mpi backend from Python: mpi_communicator(), in a build with MPI.
#pragma once

#include <pybind11/pybind11.h>

namespace collplan::python {

/// Registers mpi_communicator on `m` when the module is built with MPI; nothing otherwise.
void bindMpi(pybind11::module_ &m);

}  // namespace collplan::python
