"""example.py: the collplan Python module's README example (run by the tests).

    PYTHONPATH=build/python /usr/bin/python3 runtime/python/example.py           # 4 thread ranks
    PYTHONPATH=build/python /usr/bin/python3 -m collplan.launch -n 4 runtime/python/example.py
"""

import os

import numpy as np

import collplan


def work(comm):
    x = np.full(1000, comm.rank + 1, dtype=np.float32)
    total = comm.allreduce(x)                     # a new array; allreduce(x, x) is in place
    ranks = comm.allgather(np.array([comm.rank], dtype=np.int32))
    assert total[0] == comm.size * (comm.size + 1) / 2 and ranks.tolist() == list(range(comm.size))
    return comm.last_algorithm


if "COLLPLAN_SHM_JOB" in os.environ:              # one rank of a job collplan.launch started
    comm = collplan.communicator_from_env()
    print(f"rank {comm.rank}: ok ({work(comm)})")
else:                                             # 4 ranks as threads of this process
    print("threads: ok", collplan.run_threads(4, work))
