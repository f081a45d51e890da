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

# _collplan_mpi_family(out text): "Open MPI", "MPICH" or "" for an mpi.h or a launcher's
# `--version` output.
function(_collplan_mpi_family out text)
  if(text MATCHES "Open MPI|OpenRTE|OMPI_MAJOR_VERSION")
    set(${out} "Open MPI" PARENT_SCOPE)
  elseif(text MATCHES "HYDRA|MPICH_VERSION")
    set(${out} "MPICH" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# Any MPI that FindMPI finds: Debian's Open MPI by default (the mpicc alternative), MPICH with
# -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich.
set(COLLPLAN_HAVE_MPI OFF)
set(COLLPLAN_MPI_FAMILY "")
# MPICH's compiler wrapper, where Debian's mpich is installed beside the MPI above: plan-tune
# --backend mpich and its tests build their MPI programs with it.
find_program(COLLPLAN_MPICH_CC mpicc.mpich)
if(COLLPLAN_ENABLE_MPI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(COLLPLAN_HAVE_MPI ON)
    # C++ files that include mpi.h get the C API only: neither Open MPI's nor MPICH's C++
    # bindings (deprecated in MPI-2.2, removed in MPI-3.0) are wanted.
    set_property(TARGET MPI::MPI_C APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
                 OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
    # The launcher must belong to the MPI the programs link: FindMPI looks for mpiexec next to
    # MPI_C_COMPILER, so mpicc.mpich alone gets /usr/bin/mpiexec, Debian's mpirun alternative
    # (Open MPI), which starts an MPICH program as N separate one-rank jobs (and the reverse).
    if(MPI_C_HEADER_DIR AND EXISTS "${MPI_C_HEADER_DIR}/mpi.h")
      file(STRINGS "${MPI_C_HEADER_DIR}/mpi.h" _defines
           REGEX "#define (OMPI_MAJOR_VERSION|MPICH_VERSION) ")
      _collplan_mpi_family(COLLPLAN_MPI_FAMILY "${_defines}")
    endif()
    if(COLLPLAN_MPI_FAMILY AND MPIEXEC_EXECUTABLE)
      execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _version
                      ERROR_VARIABLE _version TIMEOUT 30)
      _collplan_mpi_family(_launcher "${_version}")
      if(_launcher AND NOT _launcher STREQUAL COLLPLAN_MPI_FAMILY)
        message(FATAL_ERROR
          "collplan: the MPI library (${MPI_C_HEADER_DIR}, from MPI_C_COMPILER=${MPI_C_COMPILER}) "
          "is ${COLLPLAN_MPI_FAMILY} but MPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE} is "
          "${_launcher}'s launcher, which would start an MPI test of N ranks as N separate "
          "one-rank jobs. Pass the launcher of the same MPI: -DMPIEXEC_EXECUTABLE="
          "/usr/bin/mpiexec.mpich for MPICH, /usr/bin/mpiexec.openmpi for Open MPI (Debian).")
      endif()
    endif()
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
    # sm_90 code plus PTX that later architectures compile when they load it.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
    endif()
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)  # CUDA::cudart, for the runtime and its install rules
    set(COLLPLAN_HAVE_CUDA ON)
  endif()
endif()
# NCCL (the cuda backend's own collectives, plan-bench --baseline nccl): nccl.h and libnccl,
# looked for next to the CUDA toolkit (/usr/local/cuda/include and lib, or lib64) and on the
# system's paths. The backend compiles against nccl.h and loads libnccl at first use (nothing
# links it). Optional: without it the baseline says this build has no NCCL.
set(COLLPLAN_HAVE_NCCL OFF)
if(COLLPLAN_HAVE_CUDA AND COLLPLAN_ENABLE_NCCL)
  find_package(CUDAToolkit QUIET)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME
            PATH_SUFFIXES include DOC "Directory of nccl.h")
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
               ENV NCCL_HOME PATH_SUFFIXES lib lib64 DOC "libnccl")
  if(TARGET CUDA::cudart AND NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(COLLPLAN_HAVE_NCCL ON)
    file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version
         REGEX "#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE "[^0-9;]*([0-9]+)[^;]*" "\\1" _nccl_version "${_nccl_version}")
    string(REPLACE ";" "." COLLPLAN_NCCL_VERSION "${_nccl_version}")
  endif()
endif()
if(COLLPLAN_HAVE_NCCL)
  message(STATUS "collplan: NCCL ${COLLPLAN_NCCL_VERSION}: ${NCCL_INCLUDE_DIR}, ${NCCL_LIBRARY}")
endif()
if(COLLPLAN_HAVE_MPI)
  message(STATUS "collplan: MPI: ${COLLPLAN_MPI_FAMILY} (${MPI_C_HEADER_DIR}), launcher "
                 "${MPIEXEC_EXECUTABLE}")
endif()
message(STATUS "collplan: MPI=${COLLPLAN_HAVE_MPI} CUDA=${COLLPLAN_HAVE_CUDA} NCCL=${COLLPLAN_HAVE_NCCL}")

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
