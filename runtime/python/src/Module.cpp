// The _collplan extension module: plans, bundles, communicators and collplan's errors (the
// runtime's bindings; the tools' are the _collplan_tools module beside the tools).
#include "PyComm.h"
#include "PyMpi.h"
#include "PyPlans.h"

#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/PlanError.h"
#include "runtime/sim/SimError.h"
#include "runtime/topology/TopologyError.h"

namespace py = pybind11;
using namespace collplan;

namespace {

/// collplan.Error (a RuntimeError with `status`, the C API's collplan_status_t or -1) and its
/// subclasses for bad plan, topology and simulation inputs.
void bindErrors(py::module_ &m) {
  static py::exception<collplan::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<PlanError> planError(m, "PlanError", error.ptr());
  static py::exception<TopologyError> topologyError(m, "TopologyError", error.ptr());
  static py::exception<SimError> simError(m, "SimError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const py::exception<collplan::Error> &type, const char *what, int status) {
      py::object instance = py::reinterpret_borrow<py::object>(type.ptr())(what);
      instance.attr("status") = status;
      PyErr_SetObject(type.ptr(), instance.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const collplan::Error &e) {
      raise(error, e.what(), int(e.status()));
    } catch (const PlanError &e) {
      PyErr_SetString(planError.ptr(), e.what());
    } catch (const TopologyError &e) {
      PyErr_SetString(topologyError.ptr(), e.what());
    } catch (const SimError &e) {
      PyErr_SetString(simError.ptr(), e.what());
    } catch (const RuntimeError &e) {
      raise(error, e.what(), -1);
    }
  });
}

}  // namespace

PYBIND11_MODULE(_collplan, m) {
  m.doc() = "collplan: tuned collective plans and the runtime that runs them";
  bindErrors(m);
  python::bindPlans(m);
  python::bindCommunicator(m);
  python::bindMpi(m);
}
