#!/usr/bin/env bash
# Installs the runtime component of BUILD_DIR into WORK/prefix, then builds and runs the C and
# C++ examples against it out of tree: with find_package(collplan) (shared and static, in a C and
# C++ project and in a C-only one) and with pkg-config (shared, by rpath; static, with the C
# driver); then installs everything and runs an installed tool on a shipped bundle.
# Fails on any step, saying which.
#   install_test.sh BUILD_DIR WORK CC CXX
set -euo pipefail
build=$1 work=$2 cc=$3 cxx=$4
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
examples=$repo/runtime/api
prefix=$work/prefix

step() { echo "== $*"; }
rm -rf "$work"
mkdir -p "$work"

step "cmake --install $build --prefix $prefix --component runtime"
cmake --install "$build" --prefix "$prefix" --component runtime >"$work/install.log"
for f in include/collplan/collplan.h include/collplan/collplan.hpp; do
  [[ -f $prefix/$f ]] || { echo "missing $prefix/$f" >&2; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name libcollplan.a | head -1)")
[[ -f $libdir/libcollplan.a && -L $libdir/libcollplan.so ]] ||
  { echo "libcollplan.a or libcollplan.so missing under $prefix" >&2; exit 1; }
# The shared library exports the C API alone.
if nm -D --defined-only "$libdir/libcollplan.so" | awk '{print $3}' | grep -v '^collplan_' |
   grep -v '^$' >"$work/extra-symbols"; then
  echo "libcollplan.so exports more than collplan_*:" >&2
  head "$work/extra-symbols" >&2
  exit 1
fi

# A build with MPI installs libcollplan-mpi.so: the MPI functions it defines and nothing else.
if [[ -f $build/lib/libcollplan-mpi.so ]]; then
  [[ -f $libdir/libcollplan-mpi.so ]] || { echo "libcollplan-mpi.so missing under $libdir" >&2; exit 1; }
  if nm -D --defined-only "$libdir/libcollplan-mpi.so" | awk '{print $3}' | grep -v '^MPI_' |
     grep -v '^$' >"$work/extra-symbols"; then
    echo "libcollplan-mpi.so exports more than MPI_*:" >&2
    head "$work/extra-symbols" >&2
    exit 1
  fi
fi

# The NCCL tuner plugin: installed, exporting NCCL's tuner tables and nothing else.
[[ -f $libdir/libnccl-tuner-collplan.so ]] ||
  { echo "libnccl-tuner-collplan.so missing under $libdir" >&2; exit 1; }
exports=$(nm -D --defined-only "$libdir/libnccl-tuner-collplan.so" | awk '{print $3}' | sort | tr '\n' ' ')
[[ $exports == "ncclTunerPlugin_v5 ncclTunerPlugin_v6 " ]] ||
  { echo "libnccl-tuner-collplan.so exports: $exports" >&2; exit 1; }

step "find_package(collplan CONFIG): the examples, shared and static"
cmake -S "$repo/tests/install/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCOLLPLAN_EXAMPLES_DIR="$examples" >"$work/consumer.log"
cmake --build "$work/consumer" >>"$work/consumer.log"
for example in example_c_shared example_cpp_shared example_c_static example_cpp_static; do
  "$work/consumer/$example" >"$work/$example.out"
done
if ldd "$work/consumer/example_c_static" | grep -q libcollplan; then
  echo "example_c_static links libcollplan.so" >&2
  exit 1
fi

step "find_package(collplan CONFIG) in a C-only project (project(app C)): shared and static"
cmake -S "$repo/tests/install/consumer-c" -B "$work/consumer-c" -G Ninja \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCOLLPLAN_EXAMPLES_DIR="$examples" >"$work/consumer-c.log"
cmake --build "$work/consumer-c" >>"$work/consumer-c.log"
"$work/consumer-c/example_c_shared" >"$work/c_only_shared.out"
"$work/consumer-c/example_c_static" >"$work/c_only_static.out"

step "pkg-config --cflags --libs collplan: the examples, shared, found at run time by rpath"
export PKG_CONFIG_PATH=$libdir/pkgconfig
flags=$(pkg-config --cflags --libs collplan)
"$cc" -std=c11 "$examples/example.c" $flags -o "$work/pc_example_c"
"$cxx" -std=c++17 "$examples/example.cpp" $flags -o "$work/pc_example_cpp"
env -u LD_LIBRARY_PATH "$work/pc_example_c" >"$work/pc_example_c.out"
env -u LD_LIBRARY_PATH "$work/pc_example_cpp" >"$work/pc_example_cpp.out"

step "pkg-config --cflags --libs collplan-static: the C example with the C driver, static"
"$cc" -std=c11 "$examples/example.c" $(pkg-config --cflags --libs collplan-static) \
  -o "$work/pc_static_example_c"
if ldd "$work/pc_static_example_c" | grep -q libcollplan; then
  echo "pc_static_example_c links libcollplan.so" >&2
  exit 1
fi
"$work/pc_static_example_c" >"$work/pc_static_example_c.out"

step "cmake --install $build --prefix $work/full: the tools verify a shipped bundle"
cmake --install "$build" --prefix "$work/full" >"$work/install-full.log"
bundle=$(find "$work/full/share/collplan/bundles" -name bundle.json | sort | head -1)
[[ -n $bundle && -f $work/full/share/collplan/schema/plan.schema.json ]] ||
  { echo "the bundles or schemas are not installed under $work/full/share/collplan" >&2; exit 1; }
"$work/full/bin/plan-verify" "$bundle" >"$work/plan-verify.out"
python=$work/full/lib/python3/dist-packages
if [[ -d $python/collplan ]]; then
  step "the installed Python package runs a collective"
  PYTHONPATH=$python /usr/bin/python3 -c \
    'import collplan, numpy; r = collplan.run_threads(2, lambda c: c.allreduce(numpy.ones(3)).tolist()); assert r == [[2.0] * 3] * 2, r' \
    >"$work/python.out"
  step "the installed collplan.launch finds the installed collplan-shm-launch (not on PATH)"
  env -u COLLPLAN_SHM_LAUNCH PATH=/usr/bin:/bin PYTHONPATH=$python COLLPLAN_TIMEOUT_S=60 \
    /usr/bin/python3 -m collplan.launch -n 2 "$repo/tests/python/shm_rank.py" >"$work/launch.out"
  [[ $(grep -o 'of 2: ok' "$work/launch.out" | wc -l) == 2 ]] ||
    { cat "$work/launch.out"; echo "collplan.launch: not every rank reported ok" >&2; exit 1; }
fi
step "all examples ran against the installed package"
