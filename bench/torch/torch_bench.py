#!/usr/bin/env python3
"""torch_bench.py: torch.distributed all_reduce and all_gather_into_tensor, collplan vs gloo.

Both backends run in the same invocation on the same machine: for each rank count, N processes
are spawned per backend (torch.multiprocessing, FileStore rendezvous). Each rank times every
call (after a barrier-free warm-up); a size's time is the slowest rank's median. Message size:
the all_reduce tensor, the all_gather_into_tensor output (nccl-tests' convention), float32.
gloo has no all_gather_into_tensor in torch 1.13: it runs all_gather into the output's views.
Torch's own mpi backend is not compared: Debian's torch is built without MPI.

With --mpirun MPIRUN, each rank count runs as MPI processes under that launcher instead: the
collplan group runs on collplan's mpi backend, and a gloo group of the same processes
(dist.new_group) is measured beside it, size by size, in the same launch.

  PYTHONPATH=<build>/python:runtime/python /usr/bin/python3 bench/torch/torch_bench.py
  PYTHONPATH=... COLLPLAN_MPI_NODES=2 /usr/bin/python3 bench/torch/torch_bench.py --mpirun mpirun
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

COLLECTIVES = ["all_reduce", "all_gather_into_tensor"]


def sizes(max_bytes):
    size, out = 8, []
    while size <= max_bytes:
        out.append(size)
        size *= 8 if size < 65536 else 4
    return out


def reps_for(nbytes):
    return 200 if nbytes <= 65536 else 40 if nbytes <= 4 << 20 else 8


def make_call(collective, backend, nbytes, size, group=None):
    """The timed call (on `group`, else the default group) and its message size in bytes. gloo
    in torch 1.13 has no all_gather_into_tensor (_allgather_base): it gathers into the output's
    per-rank views (dist.all_gather), which leaves the same result in the same tensor."""
    if collective == "all_reduce":
        x = torch.ones(max(1, nbytes // 4))
        return (lambda: dist.all_reduce(x, group=group)), x.numel() * 4
    per_rank = max(1, nbytes // 4 // size)
    x, out = torch.ones(per_rank), torch.empty(per_rank * size)
    if backend == "gloo":
        views = list(out.chunk(size))
        return (lambda: dist.all_gather(views, x, group=group)), out.numel() * 4
    return (lambda: dist.all_gather_into_tensor(out, x, group=group)), out.numel() * 4


def measure(collective, backend, nbytes, size, group=None):
    call, actual = make_call(collective, backend, nbytes, size, group)
    for _ in range(5):
        call()
    times = []
    for _ in range(reps_for(nbytes)):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return actual, statistics.median(times) * 1e6


def rank_main(rank, size, backend, init, max_bytes, out_dir):
    torch.set_num_threads(1)
    if backend == "collplan":
        import collplan.torch  # noqa: F401  (registers the backend)
    dist.init_process_group(backend, init_method=init, rank=rank, world_size=size)
    results = []
    for collective in COLLECTIVES:
        for nbytes in sizes(max_bytes):
            dist.barrier()
            actual, us = measure(collective, backend, nbytes, size)
            results.append({"collective": collective, "bytes": actual, "us": us})
    dist.barrier()
    dist.destroy_process_group()
    with open(os.path.join(out_dir, "{}-{}.json".format(backend, rank)), "w") as f:
        json.dump(results, f)


def run_backend(backend, size, max_bytes, work):
    init = "file://" + os.path.join(work, "store-{}-{}".format(backend, size))
    mp.spawn(rank_main, args=(size, backend, init, max_bytes, work), nprocs=size, join=True)
    per_rank = []
    for rank in range(size):
        with open(os.path.join(work, "{}-{}.json".format(backend, rank))) as f:
            per_rank.append(json.load(f))
    # The slowest rank's median per (collective, size).
    return [dict(row, us=max(r[i]["us"] for r in per_rank)) for i, row in enumerate(per_rank[0])]


def mpi_rank_main(store, max_bytes, out_dir):
    """One MPI process: the default group on collplan (its mpi backend) and a gloo group of the
    same processes, measured one after the other at every size."""
    import collplan.torch  # noqa: F401  (registers the backend)
    torch.set_num_threads(1)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "-1")))
    size = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("PMI_SIZE", "0")))
    if rank < 0 or size < 1:
        raise SystemExit("--mpi-store: not started by Open MPI's or MPICH's launcher")
    dist.init_process_group("collplan", init_method=store, rank=rank, world_size=size)
    transport = dist.distributed_c10d._get_default_group().transport
    if transport != "mpi":
        raise SystemExit("the collplan group runs on {}, not mpi".format(transport))
    groups = {"collplan": None, "gloo": dist.new_group(backend="gloo")}
    results = {b: [] for b in groups}
    for collective in COLLECTIVES:
        for nbytes in sizes(max_bytes):
            for backend, group in groups.items():
                dist.barrier()
                actual, us = measure(collective, backend, nbytes, size, group)
                results[backend].append({"collective": collective, "bytes": actual, "us": us})
    dist.barrier()
    for backend in groups:
        with open(os.path.join(out_dir, "{}-{}.json".format(backend, rank)), "w") as f:
            json.dump(results[backend], f)
    dist.destroy_process_group()


def run_mpi(mpirun, size, max_bytes, work):
    """Both backends' rows from one launch of `size` MPI processes."""
    import subprocess
    flags = []
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
    store = "file://" + os.path.join(work, "store-mpi-{}".format(size))
    subprocess.check_call([mpirun, *flags, "-np", str(size), sys.executable,
                           os.path.abspath(__file__), "--mpi-store", store, "--work", work,
                           "--max-bytes", str(max_bytes)])
    table = {}
    for backend in ("collplan", "gloo"):
        per_rank = []
        for rank in range(size):
            with open(os.path.join(work, "{}-{}.json".format(backend, rank))) as f:
                per_rank.append(json.load(f))
        table[backend] = [dict(row, us=max(r[i]["us"] for r in per_rank))
                          for i, row in enumerate(per_rank[0])]
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--max-bytes", type=int, default=64 << 20)
    parser.add_argument("--backends", nargs="+", default=["collplan", "gloo"])
    parser.add_argument("--mpirun", help="run the ranks as MPI processes under this launcher")
    parser.add_argument("--mpi-store", help=argparse.SUPPRESS)  # a rank under the launcher
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mpi_store:
        mpi_rank_main(args.mpi_store, args.max_bytes, args.work)
        return 0
    if args.mpirun:
        args.backends = ["collplan", "gloo"]
    print("# torch {}, {} CPUs, median of per-call times, slowest rank; float32".format(
        torch.__version__, os.cpu_count()))
    header = "{:<24}{:>6}{:>12}".format("collective", "ranks", "bytes")
    header += "".join("{:>14}".format(b + " us") for b in args.backends)
    header += "".join("{:>16}".format(b + "/" + args.backends[0]) for b in args.backends[1:])
    print(header)
    for size in args.ranks:
        with tempfile.TemporaryDirectory() as work:
            if args.mpirun:
                table = run_mpi(args.mpirun, size, args.max_bytes, work)
            else:
                table = {b: run_backend(b, size, args.max_bytes, work) for b in args.backends}
        for i, row in enumerate(table[args.backends[0]]):
            line = "{:<24}{:>6}{:>12}".format(row["collective"], size, row["bytes"])
            line += "".join("{:>14.1f}".format(table[b][i]["us"]) for b in args.backends)
            line += "".join("{:>16.2f}".format(table[b][i]["us"] / row["us"])
                            for b in args.backends[1:])
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
