# Finds the non-MLIR dependencies (Debian bookworm packages) and defines collplan_add_library.
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
if(COLLPLAN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(COLLPLAN_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
# Debian's interpreter, the one that sees Debian's numpy and torch, rather than another python3
# earlier on PATH (pyenv and the like): the Python module and every Python test use it.
if(NOT DEFINED CACHE{Python3_EXECUTABLE} AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python interpreter of the build")
endif()
# Where `cmake --install` puts the collplan Python package (and the torch extension in it).
set(COLLPLAN_PYTHON_INSTALL_DIR lib/python3/dist-packages/collplan CACHE STRING
    "Where the collplan Python package is installed, relative to the prefix")
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)

set(COLLPLAN_HAVE_MPI OFF)
if(COLLPLAN_ENABLE_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(COLLPLAN_HAVE_MPI ON)
  endif()
endif()

set(COLLPLAN_HAVE_CUDA OFF)
if(COLLPLAN_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(COLLPLAN_HAVE_CUDA ON)
  endif()
endif()
message(STATUS "collplan: MPI=${COLLPLAN_HAVE_MPI} CUDA=${COLLPLAN_HAVE_CUDA}")

set(COLLPLAN_WARNINGS -Wall -Wextra -Wno-unused-parameter)

# collplan_add_library(name SOURCES... [DEPS targets...]): a static library that includes from the
# repository and build roots.
function(collplan_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  target_compile_options(${name} PRIVATE ${COLLPLAN_WARNINGS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()
