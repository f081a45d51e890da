#!/usr/bin/env bash
# Installs missing Debian packages, configures and builds collplan, then runs `main` or `test`.
#
#   tools/setup.sh            set up and build only
#   tools/setup.sh main       ... building only the tools the main job runs, then tune plans for
#                             this machine and show the result
#   tools/setup.sh test       ... then run the whole test suite, then the MPI tests against
#                             MPICH (a runtime-only build of their own), then build the fuzz
#                             targets (tests/fuzz, clang 19) and run each for a short while
#
# Environment: COLLPLAN_BUILD_DIR (default build), COLLPLAN_JOBS (default: all cores),
# COLLPLAN_MPICH_BUILD_DIR (default build-mpich), COLLPLAN_FUZZ_BUILD_DIR (default build-fuzz),
# COLLPLAN_FUZZ_SECONDS (per fuzz target, default 25; 0 leaves the fuzz targets out).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COLLPLAN_BUILD_DIR:-$repo/build}
mode=${1:-build}
mpich_build=${COLLPLAN_MPICH_BUILD_DIR:-$repo/build-mpich}
fuzz_build=${COLLPLAN_FUZZ_BUILD_DIR:-$repo/build-fuzz}
fuzz_seconds=${COLLPLAN_FUZZ_SECONDS:-25}

packages=(
  cmake ninja-build g++ pkg-config python3
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin libhwloc-dev
  python3-dev pybind11-dev python3-numpy
)
# The torch.distributed backend and its tests need Debian's torch, the mpi backend is also
# tested against MPICH (Open MPI stays the default: its alternatives have the higher priority),
# and libcollplan-mpi.so runs Debian's hpcc unchanged; the main job needs none of them.
if [[ $mode == test ]]; then
  packages+=(python3-torch libtorch-dev mpich libmpich-dev hpcc)
fi
# The fuzz targets need clang 19 and its libFuzzer runtime; only the test command builds them.
if [[ $mode == test && $fuzz_seconds != 0 ]]; then
  packages+=(clang-19 libclang-rt-19-dev)
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing missing Debian packages: ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    apt_get=(apt-get)
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    apt_get=(sudo apt-get)
  else
    echo "setup: error: these packages are missing and installing them needs root:" >&2
    echo "  apt-get install ${missing[*]}" >&2
    echo "Run this script as root (or with passwordless sudo), or install them yourself." >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${apt_get[@]}" update -qq
  "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Open MPI refuses to start as root unless told it may (containers and CI run as root).
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# Configure every time: a package installed since the last run (this one's, or by hand) must be
# found, and CMake searches again for what it did not find before.
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
jobs=${COLLPLAN_JOBS:-$(nproc)}
if [[ $mode == main ]]; then
  # Only what the main job runs (tools/main-job.sh), not the test suite.
  cmake --build "$build" -j "$jobs" --target coll-opt plan-tune plan-bench
else
  cmake --build "$build" -j "$jobs"
fi

case $mode in
  build) ;;
  main)
    exec "$repo/tools/main-job.sh" "$build"
    ;;
  test)
    # Every suite whose dependency this script installs must run: a skip is a failure, except
    # for the tests that need a GPU (label gpu), which no set-up can install.
    results=$build/ctest-results.xml
    status=0
    (cd "$build" && ctest --output-on-failure -j "$jobs" --output-junit "$results") || status=$?
    python3 "$repo/tools/check_skips.py" "$build" "$results" || status=1
    ((status == 0)) || exit "$status"
    # MPICH is installed above, so its tests must run (exit 77, skipped, is a failure here).
    COLLPLAN_JOBS=$jobs "$repo/tests/runtime/mpi/check_mpich.sh" "$mpich_build"
    if [[ $fuzz_seconds == 0 ]]; then exit 0; fi
    if [[ ! -f $fuzz_build/build.ninja ]]; then
      cmake -S "$repo" -B "$fuzz_build" -G Ninja -DCOLLPLAN_FUZZ=ON \
        -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
    fi
    cmake --build "$fuzz_build" -j "$jobs" --target fuzzers
    exec "$repo/tests/fuzz/run.sh" -b "$fuzz_build" -t "$fuzz_seconds"
    ;;
  *)
    echo "setup: error: unknown mode '$mode' (expected: main, test, or nothing)" >&2
    exit 2
    ;;
esac
