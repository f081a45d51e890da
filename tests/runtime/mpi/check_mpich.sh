#!/usr/bin/env bash
# Builds the mpi backend against Debian's MPICH and runs the MPI tests: check_mpich.sh [BUILD_DIR].
#
# Configures BUILD_DIR (default: build-mpich in the repository) with MPICH's compiler wrapper and
# launcher, without the compiler (MLIR) and the benchmarks, builds only collplan_runtime,
# collplan_mpi_tests, collplan_example_mpi and libcollplan-mpi.so with its test program, then
# runs `ctest -L mpi`. Open MPI stays the system default (the mpi and mpirun alternatives are
# not touched). Exits 77 when MPICH is not installed (apt-get install mpich libmpich-dev).
# Environment: COLLPLAN_JOBS (default: all cores).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
build=${1:-$repo/build-mpich}
jobs=${COLLPLAN_JOBS:-$(nproc)}
mpicc=/usr/bin/mpicc.mpich
mpiexec=/usr/bin/mpiexec.mpich

for tool in "$mpicc" "$mpiexec"; do
  if [[ ! -x $tool ]]; then
    echo "check_mpich: skipped: $tool is missing (apt-get install mpich libmpich-dev)"
    exit 77
  fi
done

# FindMPI keeps what it found in the cache: a build dir configured with another MPI stays so.
if [[ -f $build/CMakeCache.txt ]]; then
  configured=$(sed -n 's/^MPI_C_COMPILER:FILEPATH=//p' "$build/CMakeCache.txt")
  if [[ $configured != "$mpicc" ]]; then
    echo "check_mpich: error: $build is configured with MPI_C_COMPILER=${configured:-(none)};" \
         "use a new build dir for MPICH" >&2
    exit 2
  fi
fi

mkdir -p "$build"
if ! cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCOLLPLAN_BUILD_COMPILER=OFF -DCOLLPLAN_BUILD_BENCH=OFF \
     -DMPI_C_COMPILER="$mpicc" -DMPIEXEC_EXECUTABLE="$mpiexec" >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  exit 1
fi
if ! grep -q '^-- collplan: MPI: MPICH' "$build/configure.log"; then
  grep 'collplan: MPI' "$build/configure.log" >&2 || true
  echo "check_mpich: error: CMake did not find MPICH with $mpicc (see $build/configure.log)" >&2
  exit 1
fi
grep '^-- collplan: MPI' "$build/configure.log"
cmake --build "$build" -j "$jobs" --target collplan_runtime collplan_mpi_tests collplan_example_mpi \
  collplan_mpi_interpose collplan_pmpi_program
cd "$build"
exec ctest -L mpi --output-on-failure
