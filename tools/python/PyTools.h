// The tools as Python functions returning data: compile, bench, tune.
#pragma once

#include <pybind11/pybind11.h>

namespace collplan::python {

/// Registers compile, bench and tune on `m` (tune only in a build with the compiler).
void bindTools(pybind11::module_ &m);

}  // namespace collplan::python
