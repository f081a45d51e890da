"""collplan: tuned collective-communication plans, the runtime that runs them, and the tools.

Plans and bundles::

    bundle = collplan.load_bundle("tuned.bundle.json")
    for table in bundle.tables:
        for b in table.buckets:
            print(table.collective, b.min_bytes, b.max_bytes, b.algorithm, b.winner)

Collectives on NumPy arrays, ranks as threads of this process::

    def body(comm):
        x = numpy.full(1000, comm.rank + 1, dtype=numpy.float32)
        return comm.allreduce(x)            # a new array; comm.allreduce(x, x) is in place
    results = collplan.run_threads(4, body)

or one rank per process (cpu-shm), started by ``python3 -m collplan.launch -n 4 script.py``::

    comm = collplan.communicator_from_env()

Errors raise collplan.Error (``status``: the C API's status), or its subclasses PlanError,
TopologyError and SimError, with collplan's messages; bad arguments raise ValueError/TypeError.
"""

import pkgutil

# The package may be found twice on sys.path, as its sources (runtime/python) and as the build
# tree that holds the compiled modules (<build>/python): either one finds the other's modules.
__path__ = pkgutil.extend_path(__path__, __name__)

from ._collplan import (  # noqa: F401,E402  (the public API)
    Bucket,
    Bundle,
    Communicator,
    Error,
    Plan,
    PlanError,
    SimError,
    Table,
    TopologyError,
    communicator_from_env,
    load_bundle,
    load_plan,
    plan_verify,
    run_threads,
    shm_communicator,
)

# The tools' extension, built beside the tools; it shares the runtime extension's types and
# errors, so it is imported second.
from ._collplan_tools import bench, compile  # noqa: F401,E402

try:  # only in a build with the compiler (plan-tune's library)
    from ._collplan_tools import tune  # noqa: F401
except ImportError:
    pass

try:  # only in a build with MPI: run the script under mpirun
    from ._collplan import mpi_communicator  # noqa: F401
except ImportError:
    pass

__all__ = [name for name in dir() if not name.startswith("_")]
