#!/bin/sh
# Runs an MPI test program on N processes: run_mpi_test.sh MPIRUN N PROGRAM [ARGS...].
# Exits 77 (CTest's SKIP_RETURN_CODE) when collplan was built without MPI (PROGRAM is "none")
# or mpirun is missing.
mpirun=$1 n=$2 program=$3
shift 3
if [ "$program" = none ]; then
  echo "skipped: collplan was configured without MPI (install libopenmpi-dev openmpi-bin, or" \
       "libmpich-dev mpich, and reconfigure)"
  exit 77
fi
if ! command -v "$mpirun" > /dev/null 2>&1; then
  echo "skipped: $mpirun was not found (install openmpi-bin, or mpich for an MPICH build)"
  exit 77
fi
# The tests run more processes than cores (8 ranks on 2 cores), and CI runs as root. Open MPI
# refuses both unless told (--oversubscribe, --allow-run-as-root); MPICH's Hydra allows both
# and rejects those flags as unrecognized arguments.
flags=
version=$("$mpirun" --version 2>&1)
case $version in
  *"Open MPI"* | *OpenRTE*)
    flags=--oversubscribe
    [ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
    ;;
  *HYDRA*) ;;
  *) echo "run_mpi_test.sh: $mpirun is neither Open MPI's nor MPICH's; no flags added" >&2 ;;
esac
# A hang would be a bug: every wait gives up after 30 s with an error naming what it waited for.
COLLPLAN_TIMEOUT_S=${COLLPLAN_TIMEOUT_S:-30} exec "$mpirun" $flags -np "$n" "$program" "$@"
