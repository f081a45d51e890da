"""One rank of an mpirun job: the mpi backend from Python checks a few collectives."""

import sys

import numpy as np

import collplan

if not hasattr(collplan, "mpi_communicator"):
    print("skipped: this collplan module was built without MPI")
    sys.exit(77)
comm = collplan.mpi_communicator()
x = np.full(5001, comm.rank + 1, dtype=np.float32)
comm.allreduce(x, x)
gathered = comm.allgather(np.array([comm.rank], dtype=np.int64))
ok = np.all(x == comm.size * (comm.size + 1) / 2) and gathered.tolist() == list(range(comm.size))
print(f"rank {comm.rank} of {comm.size}: {'ok' if ok else 'WRONG'} ({comm.last_algorithm})")
sys.exit(0 if ok else 1)
