// NumPy/C API conversions: dtype and op names, contiguity and writability checks.
#include "PyConvert.h"

#include <stdexcept>

namespace collplan::python {

collplan_dtype_t dtypeOf(const py::dtype &dtype, const char *what) {
  const char kind = dtype.kind();
  const ssize_t size = dtype.itemsize();
  if (kind == 'f' && size == 4) return COLLPLAN_F32;
  if (kind == 'f' && size == 8) return COLLPLAN_F64;
  if (kind == 'f' && size == 2) return COLLPLAN_F16;
  if (kind == 'i' && size == 4) return COLLPLAN_I32;
  if (kind == 'i' && size == 8) return COLLPLAN_I64;
  if (kind == 'u' && size == 1) return COLLPLAN_U8;
  throw py::type_error(std::string(what) + ": dtype " + std::string(py::str(dtype.attr("name"))) +
                       " is not supported (float32, float64, float16, int32, int64, uint8)");
}

collplan_op_t parseOp(const std::string &name) {
  if (name == "sum") return COLLPLAN_SUM;
  if (name == "prod") return COLLPLAN_PROD;
  if (name == "min") return COLLPLAN_MIN;
  if (name == "max") return COLLPLAN_MAX;
  throw py::value_error("unknown reduction op \"" + name + "\" (expected sum, prod, min or max)");
}

Buffer bufferOf(const py::array &array, const char *what, bool writable) {
  if (!(array.flags() & py::array::c_style))
    throw py::type_error(std::string(what) +
                         " must be C-contiguous (numpy.ascontiguousarray makes a copy that is)");
  if (writable && !array.writeable()) throw py::value_error(std::string(what) + " is read-only");
  Buffer b;
  b.dtype = dtypeOf(array.dtype(), what);
  b.count = size_t(array.size());
  py::array view = array;  // mutable_data is not const; the data is the same
  b.data = writable ? view.mutable_data() : const_cast<void *>(array.data());
  return b;
}

py::object toPython(const nlohmann::json &json) {
  return py::module_::import("json").attr("loads")(json.dump());
}

py::array zerosLike(const py::array &like, size_t count) {
  return py::module_::import("numpy").attr("zeros")(count, like.dtype());
}

}  // namespace collplan::python
