"""One rank of a cpu-shm job started by `python3 -m collplan.launch`: checks a few collectives."""

import sys

import numpy as np

import collplan

comm = collplan.communicator_from_env()
x = np.full(1001, comm.rank + 1, dtype=np.float64)
comm.allreduce(x, x)
want = comm.size * (comm.size + 1) / 2
gathered = comm.allgather(np.array([comm.rank], dtype=np.int32))
root_value = comm.broadcast(np.array([comm.rank * 10.0]), root=comm.size - 1)
ok = (np.all(x == want) and gathered.tolist() == list(range(comm.size))
      and root_value[0] == (comm.size - 1) * 10.0)
print(f"rank {comm.rank} of {comm.size}: {'ok' if ok else 'WRONG'}")
sys.exit(0 if ok else 1)
