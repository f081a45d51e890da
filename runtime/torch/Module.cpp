// Module: the Python extension _collplan_torch (the process group class and its creator).
#include "runtime/torch/ProcessGroupCollplan.h"

#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;
using collplan::distributed::ProcessGroupCollplan;

PYBIND11_MODULE(_collplan_torch, m) {
  m.doc() = "collplan's torch.distributed backend: a c10d ProcessGroup on cpu-shm or mpi";
  // c10d::ProcessGroup and c10d::Store are bound by torch; their types must be known first.
  py::module::import("torch.distributed");

  py::class_<ProcessGroupCollplan, c10d::ProcessGroup,
             c10::intrusive_ptr<ProcessGroupCollplan>>(m, "ProcessGroupCollplan")
      .def_property_readonly("shm_job", &ProcessGroupCollplan::jobName,
                             "The cpu-shm job of the group (/dev/shm/collplan-<job>); '' on mpi")
      .def_property_readonly("transport", &ProcessGroupCollplan::transport,
                             "What the group runs on: 'cpu-shm' or 'mpi'");

  m.def("create_process_group", &collplan::distributed::createProcessGroupCollplan,
        py::arg("store"), py::arg("rank"), py::arg("world_size"), py::arg("timeout"),
        py::call_guard<py::gil_scoped_release>(),
        "The creator for torch.distributed.Backend.register_backend: joins the group's "
        "cpu-shm job (rank 0 picks it and publishes it in the store), or, under an MPI "
        "launcher, an MPI communicator of its processes");
}
