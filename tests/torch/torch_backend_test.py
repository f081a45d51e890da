#!/usr/bin/env python3
"""torch_backend_test.py: the torch.distributed backend "collplan" against references in Python.

Every rank makes the same calls on deterministic inputs and checks its results against what
it computes from every rank's inputs. Modes:
  --ranks N             spawns N ranks (torch.multiprocessing, a FileStore rendezvous)
  --torchrun N          runs this script under torchrun (--standalone) with N ranks, which
                        take RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT from it (env://)
  --mpirun MPIRUN N     runs N ranks under an MPI launcher (a FileStore rendezvous): the groups
                        run on the mpi backend, which each rank checks
Exits 77 (skipped) when torch is missing, or when the extension was not built and
--expect-extension is not given.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import warnings

SKIP = 77
# torch 1.13 warns that the multi-GPU and coalesced calls (refused below) will be deprecated.
warnings.filterwarnings("ignore", message=".*will be deprecated", category=UserWarning)

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
except ImportError as error:
    print("SKIP: torch is not importable by {} ({})".format(sys.executable, error))
    sys.exit(SKIP)

ALL_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32,
              torch.int64, torch.uint8]
SOME_DTYPES = [torch.float32, torch.bfloat16, torch.int64, torch.uint8]
OPS = {dist.ReduceOp.SUM: "sum", dist.ReduceOp.PRODUCT: "prod", dist.ReduceOp.MIN: "min",
       dist.ReduceOp.MAX: "max"}
SIZES = [1, 5, 1000, 10000]  # 10000 float32: 40 KB, above cpu-shm's single-copy threshold


def data(rank, n, dtype, salt=0):
    """Rank `rank`'s input: small integers (1..3), so sums and products are exact in every dtype."""
    values = (torch.arange(n, dtype=torch.int64) * 7 + rank * 3 + salt) % 3 + 1
    return values.to(dtype)


def reference(op, tensors):
    """op over the list of tensors, computed in float64 and cast back."""
    stack = torch.stack([t.to(torch.float64) for t in tensors])
    if op == "sum":
        out = stack.sum(0)
    elif op == "prod":
        out = stack.prod(0)
    elif op == "min":
        out = stack.min(0).values
    elif op == "max":
        out = stack.max(0).values
    else:  # avg
        out = stack.sum(0) / len(tensors)
    return out.to(tensors[0].dtype)


class Checks:
    """Counts the checks made, so a run that tests nothing fails."""

    def __init__(self, rank):
        self.rank = rank
        self.count = 0

    def equal(self, what, got, want):
        self.count += 1
        if got.dtype != want.dtype or not torch.equal(got, want):
            raise AssertionError("rank {}: {}: got {} want {}".format(
                self.rank, what, got.flatten()[:8].tolist(), want.flatten()[:8].tolist()))

    def raises(self, what, fragments, call, any_of=()):
        """call() raises an error whose message holds every fragment and one of any_of."""
        self.count += 1
        try:
            call()
        except (RuntimeError, ValueError) as error:
            message = str(error)
            missing = [f for f in fragments if f not in message]
            if any_of and not any(f in message for f in any_of):
                missing.append(" or ".join(any_of))
            if missing:
                raise AssertionError("rank {}: {}: the error lacks {}: {}".format(
                    self.rank, what, missing, message))
            return
        raise AssertionError("rank {}: {}: no error".format(self.rank, what))


def check_allreduce(c, rank, size):
    for dtype in ALL_DTYPES:
        for op, name in OPS.items():
            for n in SIZES:
                t = data(rank, n, dtype)
                dist.all_reduce(t, op=op)  # in place, as torch's API is
                want = reference(name, [data(r, n, dtype) for r in range(size)])
                c.equal("all_reduce {} {} n={}".format(name, dtype, n), t, want)
        if dtype.is_floating_point:
            t = data(rank, 5, dtype)
            dist.all_reduce(t, op=dist.ReduceOp.AVG)
            c.equal("all_reduce avg {}".format(dtype), t,
                    reference("avg", [data(r, 5, dtype) for r in range(size)]))
    # A non-contiguous tensor: reduced through a contiguous copy written back.
    t = data(rank, 12, torch.float32).view(3, 4).t()
    dist.all_reduce(t)
    want = reference("sum", [data(r, 12, torch.float32).view(3, 4).t() for r in range(size)])
    c.equal("all_reduce of a transposed tensor", t, want)


def check_allgather(c, rank, size):
    for dtype in SOME_DTYPES:
        for n in [1, 5, 10000]:
            blocks = [data(r, n, dtype) for r in range(size)]
            out = [torch.zeros(n, dtype=dtype) for _ in range(size)]
            dist.all_gather(out, data(rank, n, dtype))
            for r in range(size):
                c.equal("all_gather {} n={} block {}".format(dtype, n, r), out[r], blocks[r])
            flat = torch.zeros(size * n, dtype=dtype)
            dist.all_gather_into_tensor(flat, data(rank, n, dtype))
            c.equal("all_gather_into_tensor {} n={}".format(dtype, n), flat, torch.cat(blocks))
            inplace = torch.zeros(size * n, dtype=dtype)
            inplace.narrow(0, rank * n, n).copy_(data(rank, n, dtype))
            dist.all_gather_into_tensor(inplace, inplace.narrow(0, rank * n, n))
            c.equal("all_gather_into_tensor in place {}".format(dtype), inplace,
                    torch.cat(blocks))


def check_reduce_scatter(c, rank, size):
    for dtype in SOME_DTYPES:
        for op, name in [(dist.ReduceOp.SUM, "sum"), (dist.ReduceOp.MAX, "max")]:
            for n in [1, 5, 3000]:
                inputs = [data(rank, n, dtype, salt=j) for j in range(size)]
                want = reference(name, [data(r, n, dtype, salt=rank) for r in range(size)])
                out = torch.zeros(n, dtype=dtype)
                dist.reduce_scatter(out, inputs, op=op)
                c.equal("reduce_scatter {} {} n={}".format(name, dtype, n), out, want)
                out = torch.zeros(n, dtype=dtype)
                dist.reduce_scatter_tensor(out, torch.cat(inputs), op=op)
                c.equal("reduce_scatter_tensor {} {} n={}".format(name, dtype, n), out, want)
                whole = torch.cat(inputs)
                dist.reduce_scatter_tensor(whole.narrow(0, rank * n, n), whole, op=op)
                c.equal("reduce_scatter_tensor in place {} {}".format(name, dtype),
                        whole.narrow(0, rank * n, n), want)


def check_alltoall(c, rank, size):
    for dtype in SOME_DTYPES:
        n = 3
        send = torch.cat([data(rank, n, dtype, salt=j) for j in range(size)])
        want = torch.cat([data(r, n, dtype, salt=rank) for r in range(size)])
        out = torch.zeros(size * n, dtype=dtype)
        dist.all_to_all_single(out, send)
        c.equal("all_to_all_single {}".format(dtype), out, want)
        out = torch.zeros(size * n, dtype=dtype)
        dist.all_to_all_single(out, send, [n] * size, [n] * size)
        c.equal("all_to_all_single equal splits {}".format(dtype), out, want)
        outs = [torch.zeros(n, dtype=dtype) for _ in range(size)]
        dist.all_to_all(outs, list(send.split(n)))
        c.equal("all_to_all {}".format(dtype), torch.cat(outs), want)


def check_rooted(c, rank, size):
    for dtype in SOME_DTYPES:
        for root in range(size):
            t = data(rank, 7, dtype)
            dist.broadcast(t, src=root)
            c.equal("broadcast {} from {}".format(dtype, root), t, data(root, 7, dtype))

            t = data(rank, 7, dtype)
            dist.reduce(t, dst=root, op=dist.ReduceOp.SUM)
            want = reference("sum", [data(r, 7, dtype) for r in range(size)])
            c.equal("reduce {} to {}".format(dtype, root), t,
                    want if rank == root else data(rank, 7, dtype))

            gathered = [torch.zeros(4, dtype=dtype) for _ in range(size)] if rank == root else None
            dist.gather(data(rank, 4, dtype), gathered, dst=root)
            if rank == root:
                for r in range(size):
                    c.equal("gather {} to {} block {}".format(dtype, root, r), gathered[r],
                            data(r, 4, dtype))

            parts = [data(root, 4, dtype, salt=j) for j in range(size)] if rank == root else None
            out = torch.zeros(4, dtype=dtype)
            dist.scatter(out, parts, src=root)
            c.equal("scatter {} from {}".format(dtype, root), out, data(root, 4, dtype, salt=rank))


def check_async_and_barrier(c, rank, size):
    tensors = [data(rank, 2000, torch.float32, salt=i) for i in range(6)]
    works = [dist.all_reduce(t, async_op=True) for t in tensors]
    dist.barrier()
    for i, (t, work) in enumerate(zip(tensors, works)):
        work.wait()
        c.count += 1
        assert work.is_completed(), "rank {}: work {} not completed after wait".format(rank, i)
        c.equal("async all_reduce {}".format(i), t,
                reference("sum", [data(r, 2000, torch.float32, salt=i) for r in range(size)]))


def check_subgroup(c, rank, size):
    """A group of the even ranks: a cpu-shm job of its own, beside the default group's."""
    members = list(range(0, size, 2))
    group = dist.new_group(members, backend="collplan")
    if rank in members:
        t = data(rank, 9, torch.int32)
        dist.all_reduce(t, group=group)
        c.equal("all_reduce on the even ranks", t,
                reference("sum", [data(r, 9, torch.int32) for r in members]))
    dist.barrier()


def check_ddp(c, rank, size):
    """DDP averages gradients through allreduce and the Work's future."""
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))
    x = torch.full((3, 4), float(rank + 1))
    model(x).sum().backward()
    mean = sum(r + 1 for r in range(size)) / size
    want = torch.full((2, 4), 3.0 * mean)
    c.equal("DDP weight gradient", model.module.weight.grad, want)


def check_errors(c, rank, size):
    t = torch.ones(4)
    c.raises("send", ["collplan send (rank {} of {})".format(rank, size), "point-to-point"],
             lambda: dist.send(t, dst=(rank + 1) % size))
    c.raises("recv", ["collplan recv", "point-to-point"],
             lambda: dist.recv(t, src=(rank + 1) % size))
    c.raises("int16", ["collplan allreduce", "Short", "does not support"],
             lambda: dist.all_reduce(torch.ones(4, dtype=torch.int16)))
    c.raises("avg of int", ["collplan allreduce", "AVG needs a floating dtype"],
             lambda: dist.all_reduce(torch.ones(4, dtype=torch.int32), op=dist.ReduceOp.AVG))
    c.raises("bitwise op", ["collplan allreduce", "not supported"],
             lambda: dist.all_reduce(torch.ones(4, dtype=torch.int32), op=dist.ReduceOp.BAND))
    splits = [size + 1] + [1] * (size - 1)
    c.raises("unequal splits", ["collplan alltoall_base", "unequal split sizes"],
             lambda: dist.all_to_all_single(torch.zeros(2 * size), torch.zeros(2 * size),
                                            splits, splits))
    c.raises("two tensors", ["collplan allreduce", "exactly one"],
             lambda: dist.all_reduce_multigpu([torch.ones(2), torch.ones(2)]))
    c.raises("coalesced", ["collplan allreduce_coalesced", "not supported"],
             lambda: dist.all_reduce_coalesced([torch.ones(2), torch.ones(3)]))
    c.raises("wrong output size", ["collplan _allgather_base", "elements"],
             lambda: dist.all_gather_into_tensor(torch.zeros(3), torch.zeros(2)))
    # The group still works after refused calls (nothing was queued).
    t = torch.ones(3)
    dist.all_reduce(t)
    c.equal("all_reduce after refused calls", t, torch.full((3,), float(size)))


def check_runtime_error(c, rank, size):
    """A failure inside collplan reaches wait() with collplan's message: ranks that disagree
    on the reduction (on a group of their own, whose job the failure ends). A rank sees the
    mismatch itself, or that the job ended because a peer saw it."""
    group = dist.new_group(backend="collplan")
    op = dist.ReduceOp.MAX if rank == 0 else dist.ReduceOp.SUM
    work = dist.all_reduce(torch.ones(8), op=op, group=group, async_op=True)
    c.raises("mismatched calls", ["collplan allreduce: ", "rank {} of {}".format(rank, size)],
             work.wait, any_of=["another call", "different arguments", "the job cannot go on"])
    dist.destroy_process_group(group)


def check_transport_choice(c, rank, size):
    """COLLPLAN_TORCH_TRANSPORT names the transport; another value is refused by name."""
    os.environ["COLLPLAN_TORCH_TRANSPORT"] = "bogus"
    try:
        c.raises("COLLPLAN_TORCH_TRANSPORT=bogus",
                 ["COLLPLAN_TORCH_TRANSPORT=bogus: expected cpu-shm or mpi"],
                 lambda: dist.new_group(backend="collplan"))
    finally:
        del os.environ["COLLPLAN_TORCH_TRANSPORT"]


CHECKS = [check_allreduce, check_allgather, check_reduce_scatter, check_alltoall,
          check_rooted, check_async_and_barrier, check_subgroup, check_ddp, check_errors,
          check_runtime_error, check_transport_choice]


def run_rank(rank, size, init_method, transport="cpu-shm"):
    import collplan.torch  # registers the backend  # noqa: F401
    if init_method:
        dist.init_process_group("collplan", init_method=init_method, rank=rank, world_size=size)
    else:
        dist.init_process_group("collplan")  # torchrun's environment
    assert dist.get_backend() == "collplan", dist.get_backend()
    group = dist.distributed_c10d._get_default_group()
    assert group.transport == transport, "rank {}: the group runs on {}, not {}".format(
        rank, group.transport, transport)
    checks = Checks(rank)
    for check in CHECKS:
        check(checks, rank, size)
    minimum = 7 * 4 * len(SIZES) + 100  # the allreduce sweep alone makes 112 checks
    assert checks.count >= minimum, "rank {}: only {} checks ran".format(rank, checks.count)
    dist.barrier()
    dist.destroy_process_group()
    print("rank {} of {}: {} checks passed".format(rank, size, checks.count), flush=True)


def spawned(rank, size, init_method):
    run_rank(rank, size, init_method)


def mpi_rank_and_size():
    """This process's rank and the job's size from the MPI launcher's environment."""
    for rank, size in (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("PMI_RANK", "PMI_SIZE")):
        if rank in os.environ and size in os.environ:
            return int(os.environ[rank]), int(os.environ[size])
    raise SystemExit("--mpi-store: not started by Open MPI's or MPICH's launcher")


def launch_mpi(mpirun, ranks):
    """Runs this script on `ranks` MPI processes, which meet in a FileStore in a new directory."""
    flags = []
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
    with tempfile.TemporaryDirectory() as work:
        store = "file://" + os.path.join(work, "store")
        command = [mpirun, *flags, "-np", str(ranks), sys.executable, os.path.abspath(__file__),
                   "--mpi-store", store]
        return subprocess.call(command)


def extension_available():
    try:
        import collplan.torch  # noqa: F401
        return True, ""
    except ImportError as error:
        return False, str(error)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, help="spawn this many ranks")
    parser.add_argument("--torchrun", type=int, help="run N ranks under torchrun")
    parser.add_argument("--mpirun", nargs=2, metavar=("MPIRUN", "N"),
                        help="run N ranks under this MPI launcher")
    parser.add_argument("--mpi-store", help=argparse.SUPPRESS)  # a rank under the launcher
    parser.add_argument("--expect-extension", action="store_true",
                        help="the extension was built: failing to import it is an error")
    args = parser.parse_args()
    available, why = extension_available()
    if not available:
        print(("FAIL: " if args.expect_extension else "SKIP: ") +
              "collplan.torch is not importable ({}); it is built when CMake finds libtorch, "
              "and needs PYTHONPATH=<build>/python:<repo>/runtime/python".format(why))
        sys.exit(1 if args.expect_extension else SKIP)
    if args.mpi_store:  # a rank under the MPI launcher
        rank, size = mpi_rank_and_size()
        run_rank(rank, size, args.mpi_store, transport="mpi")
        return
    if args.mpirun:
        sys.exit(launch_mpi(args.mpirun[0], int(args.mpirun[1])))
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # under torchrun
        run_rank(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), None)
        return
    if args.torchrun:
        # torch 1.13's torchrun cannot parse --redirects/--tee 0 (their default) on Python
        # 3.11, whose IntFlag no longer iterates Std.NONE (AttributeError: 'NoneType' object
        # has no attribute 'get'); 1 (stdout) works: stdout goes to a log and to the console.
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                   "--nproc_per_node", str(args.torchrun), "--redirects", "1", "--tee", "1",
                   os.path.abspath(__file__)]
        sys.exit(subprocess.call(command))
    with tempfile.TemporaryDirectory() as work:
        init = "file://" + os.path.join(work, "store")
        mp.spawn(spawned, args=(args.ranks, init), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
