// NumPy arrays and Python names to the C API's buffers, dtypes and ops, with clear errors.
#pragma once

#include "collplan.h"

#include <nlohmann/json.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

namespace collplan::python {

namespace py = pybind11;

/// The collplan dtype of a NumPy dtype (float32, float64, float16, int32, int64, uint8);
/// TypeError naming `what` and the dtype otherwise.
collplan_dtype_t dtypeOf(const py::dtype &dtype, const char *what);

/// "sum", "prod", "min" or "max"; ValueError otherwise.
collplan_op_t parseOp(const std::string &name);

/// A C-contiguous array's data, element count and dtype. TypeError for a non-contiguous array,
/// ValueError for a read-only one when `writable`.
struct Buffer {
  void *data = nullptr;
  size_t count = 0;
  collplan_dtype_t dtype = COLLPLAN_F32;
};
Buffer bufferOf(const py::array &array, const char *what, bool writable);

/// A JSON document as Python dicts and lists.
py::object toPython(const nlohmann::json &json);

/// A new zero-filled 1-D array of `count` elements of `like`'s dtype.
py::array zerosLike(const py::array &like, size_t count);

}  // namespace collplan::python
