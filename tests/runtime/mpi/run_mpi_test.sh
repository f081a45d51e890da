#!/bin/sh
# Runs an MPI test program on N processes: run_mpi_test.sh MPIRUN N PROGRAM [ARGS...].
# Exits 77 (CTest's SKIP_RETURN_CODE) when collplan was built without MPI (PROGRAM is "none")
# or mpirun is missing.
mpirun=$1 n=$2 program=$3
shift 3
if [ "$program" = none ]; then
  echo "skipped: collplan was configured without MPI (install libopenmpi-dev openmpi-bin and reconfigure)"
  exit 77
fi
if ! command -v "$mpirun" > /dev/null 2>&1; then
  echo "skipped: $mpirun was not found (install openmpi-bin)"
  exit 77
fi
flags=
if "$mpirun" --version 2>&1 | grep -Eq "Open MPI|OpenRTE"; then
  # More processes than cores (8 ranks on 2 cores); Open MPI refuses root unless told.
  flags=--oversubscribe
  [ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
fi
# A hang would be a bug: every wait gives up after 30 s with an error naming what it waited for.
COLLPLAN_TIMEOUT_S=${COLLPLAN_TIMEOUT_S:-30} exec "$mpirun" $flags -np "$n" "$program" "$@"
