"""example.py: torch.distributed on collplan's cpu-shm backend, under torchrun or spawning 2 ranks."""

import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import collplan.torch  # noqa: F401  (registers the backend "collplan")


def work(rank, world_size, init_method="env://"):
    dist.init_process_group("collplan", init_method=init_method, rank=rank,
                            world_size=world_size)
    x = torch.full((4,), float(rank + 1))
    dist.all_reduce(x)  # in place: 1 + 2 + ... + world_size everywhere
    gathered = torch.empty(4 * world_size)
    dist.all_gather_into_tensor(gathered, torch.full((4,), float(rank)))
    work = dist.all_reduce(torch.ones(1000, dtype=torch.bfloat16), async_op=True)
    work.wait()  # calls run on the group's worker thread, in issue order
    print("rank {}: all_reduce {}, all_gather {}".format(rank, x[0].item(),
                                                        gathered[::4].tolist()))
    dist.destroy_process_group()


if __name__ == "__main__":
    if "RANK" in os.environ:  # torchrun set RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
        work(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            mp.spawn(work, args=(2, "file://" + os.path.join(tmp, "store")), nprocs=2)
