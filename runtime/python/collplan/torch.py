"""collplan.torch: registers collplan as the torch.distributed backend "collplan".

Importing this module is all it takes:

    import torch.distributed as dist
    import collplan.torch
    dist.init_process_group("collplan")  # under torchrun, or with init_method/rank/world_size

Each process is one rank of a cpu-shm job (ranks on one machine, over POSIX shared memory):
rank 0 of every process group picks the job's name and nonce and shares them through the
group's store. Processes started by an MPI launcher (mpirun) run on collplan's mpi backend
instead, across machines (COLLPLAN_TORCH_TRANSPORT=cpu-shm or mpi chooses explicitly). CPU tensors of float32, float64, float16, bfloat16, int32, int64 and uint8; the
collectives all_reduce, all_gather (list and into_tensor), reduce_scatter (list and tensor),
all_to_all(_single) with equal splits, broadcast, reduce, gather, scatter and barrier.
COLLPLAN_BUNDLE names a tuned plan bundle (else the built-in plans are used).
"""

import pkgutil

import torch.distributed as _dist

import collplan as _package

# The compiled extension sits in <build>/python/collplan and this file in runtime/python/collplan.
# When one of the two directories is a regular package (has __init__.py), Python does not look
# in the other, so every `collplan` directory on sys.path joins the package's path here.
# (A namespace package's path is already all of them: extend_path leaves it as it is.)
_package.__path__ = pkgutil.extend_path(_package.__path__, _package.__name__)

try:
    from collplan import _collplan_torch
except ImportError as error:
    raise ImportError(
        "collplan.torch: cannot import the extension collplan._collplan_torch ({}): build "
        "collplan with libtorch found (cmake prints 'torch.distributed backend: libtorch ...') "
        "and put <build>/python on PYTHONPATH".format(error)) from error

BACKEND = "collplan"
ProcessGroupCollplan = _collplan_torch.ProcessGroupCollplan

if not hasattr(_dist.Backend, BACKEND.upper()):
    _dist.Backend.register_backend(BACKEND, _collplan_torch.create_process_group)
