// Plan and bundle bindings of the collplan Python module.
#pragma once

#include <pybind11/pybind11.h>

namespace collplan::python {

namespace py = pybind11;

/// Registers Plan, Bundle, Table, Bucket, load_plan, load_bundle and plan_verify on `m`.
void bindPlans(py::module_ &m);

}  // namespace collplan::python
