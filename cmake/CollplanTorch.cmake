# Finds what the torch.distributed backend (runtime/torch) needs: libtorch's CMake package,
# libtorch_python, pybind11 and the Python interpreter that sees torch. Sets COLLPLAN_HAVE_TORCH;
# when something is missing the backend is skipped with a STATUS line and nothing else changes.
option(COLLPLAN_ENABLE_TORCH "Build the torch.distributed backend when libtorch is found" ON)

# Debian's torch lives in /usr/bin/python3's dist-packages; a python3 earlier on PATH (pyenv)
# does not see it, so the interpreter is chosen explicitly, not from PATH.
if(EXISTS /usr/bin/python3)
  set(_collplan_default_python /usr/bin/python3)
else()
  find_program(_collplan_default_python NAMES python3)
endif()
set(COLLPLAN_TORCH_PYTHON "${_collplan_default_python}" CACHE FILEPATH
    "Python interpreter that imports torch (runs the torch tests and benchmarks)")

set(COLLPLAN_HAVE_TORCH OFF)
if(NOT COLLPLAN_ENABLE_TORCH)
  return()
endif()

find_package(Torch CONFIG QUIET)
# pybind11's headers only: the interpreter's headers and module suffix come from
# COLLPLAN_TORCH_PYTHON below, so pybind11 must not search for (another) Python.
set(PYBIND11_NOPYTHON ON)
find_package(pybind11 CONFIG QUIET)
if(Torch_FOUND)
  find_library(COLLPLAN_TORCH_PYTHON_LIBRARY torch_python HINTS ${TORCH_INSTALL_PREFIX}/lib)
endif()
if(COLLPLAN_TORCH_PYTHON)
  execute_process(
    COMMAND ${COLLPLAN_TORCH_PYTHON} -c
            "import sysconfig; print(sysconfig.get_paths()['include'] + ';' + sysconfig.get_config_var('EXT_SUFFIX'))"
    OUTPUT_VARIABLE _collplan_py OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _collplan_py_rc)
  if(_collplan_py_rc EQUAL 0)
    list(GET _collplan_py 0 COLLPLAN_TORCH_PYTHON_INCLUDE)
    list(GET _collplan_py 1 COLLPLAN_TORCH_PYTHON_SUFFIX)
  endif()
endif()

set(_collplan_missing)
if(NOT Torch_FOUND)
  list(APPEND _collplan_missing "libtorch (TorchConfig.cmake, from libtorch-dev)")
endif()
if(Torch_FOUND AND NOT COLLPLAN_TORCH_PYTHON_LIBRARY)
  list(APPEND _collplan_missing "libtorch_python")
endif()
if(NOT pybind11_FOUND)
  list(APPEND _collplan_missing "pybind11 (pybind11-dev)")
endif()
if(NOT COLLPLAN_TORCH_PYTHON_INCLUDE OR NOT EXISTS "${COLLPLAN_TORCH_PYTHON_INCLUDE}/Python.h")
  list(APPEND _collplan_missing "Python.h of ${COLLPLAN_TORCH_PYTHON} (python3-dev)")
endif()
if(_collplan_missing)
  list(JOIN _collplan_missing ", " _collplan_missing)
  message(STATUS "collplan: torch.distributed backend skipped: missing ${_collplan_missing}")
else()
  set(COLLPLAN_HAVE_TORCH ON)
  message(STATUS "collplan: torch.distributed backend: libtorch ${Torch_VERSION}, "
                 "${COLLPLAN_TORCH_PYTHON}")
endif()
