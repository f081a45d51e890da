#!/usr/bin/env python3
"""Writes the irregular test topologies of this directory (run it here to regenerate them):
a DGX-1 hybrid cube-mesh, a PCIe tree with asymmetric uplinks, two nodes whose NICs are
oversubscribed, a 4x4 torus with one failed link, and a random connected graph of 16 devices
(seeded, so the file is the same on every run)."""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def gpu(i, node=0, mem=900):
    return {"name": f"g{i}", "kind": "gpu", "ranks": [i], "node": node, "mem_bandwidth_gbps": mem}


def link(a, b, gbps, us):
    return {"a": a, "b": b, "bandwidth_gbps": gbps, "latency_us": us}


def write(name, devices, links, switches=(), features=()):
    doc = {"format_version": 1, "name": name, "ranks": sum(len(d["ranks"]) for d in devices),
           "devices": devices, "switches": list(switches), "links": links,
           "routing": "shortest_path", "features": list(features),
           "intra_device": {"bandwidth_gbps": 900, "latency_us": 0.5}}
    with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def dgx1():
    """DGX-1 (V100): two fully connected quads joined GPU i to i+4; six NVLinks of 25 GB/s per
    GPU, some pairs doubled (nvidia-smi topo -m)."""
    nvlinks = {(0, 1): 1, (0, 2): 1, (0, 3): 2, (0, 4): 2, (1, 2): 2, (1, 3): 1, (1, 5): 2,
               (2, 3): 2, (2, 6): 1, (3, 7): 1, (4, 5): 1, (4, 6): 1, (4, 7): 2, (5, 6): 2,
               (5, 7): 1, (6, 7): 2}
    write("dgx1-hybrid-cube-mesh", [gpu(i) for i in range(8)],
          [link(f"g{a}", f"g{b}", 25 * n, 0.7) for (a, b), n in sorted(nvlinks.items())],
          features=["duplication"])


def pcie_tree():
    """Eight GPUs under two PCIe switches (x16, 16 GB/s), whose uplinks to the root complex
    differ: x16 on one side, x8 on the other."""
    links = [link(f"g{i}", "sw0" if i < 4 else "sw1", 16, 1.0) for i in range(8)]
    links += [link("sw0", "root", 16, 1.0), link("sw1", "root", 8, 1.0)]
    write("pcie-tree-asymmetric", [gpu(i, mem=500) for i in range(8)], links,
          [{"name": n, "kind": "pcie"} for n in ("sw0", "sw1", "root")])


def two_node_fat_tree():
    """Two nodes of four GPUs on an NVSwitch (300 GB/s each); each node's GPUs share two 25 GB/s
    NICs (two GPUs per NIC, over 32 GB/s PCIe), the NICs meet at one spine switch."""
    devices, links, switches = [], [], [{"name": "spine", "kind": "switch"}]
    for node in range(2):
        switches += [{"name": f"nvs{node}", "kind": "nvswitch"},
                     {"name": f"nic{node}a", "kind": "nic"}, {"name": f"nic{node}b", "kind": "nic"}]
        for local in range(4):
            i = node * 4 + local
            devices.append(gpu(i, node=node, mem=2000))
            links.append(link(f"g{i}", f"nvs{node}", 300, 0.7))
            links.append(link(f"g{i}", f"nic{node}{'ab'[local // 2]}", 32, 1.0))
        links += [link(f"nic{node}{s}", "spine", 25, 2.0) for s in "ab"]
    write("fattree-2node-oversubscribed", devices, links, switches)


def torus_failed_link():
    """A 4x4 torus of 50 GB/s links with the link between devices 5 and 6 down."""
    links = []
    for y in range(4):
        for x in range(4):
            i = 4 * y + x
            for j in (4 * y + (x + 1) % 4, 4 * ((y + 1) % 4) + x):
                if {i, j} != {5, 6}:
                    links.append(link(f"g{i}", f"g{j}", 50, 1.0))
    write("torus-4x4-failed-link", [gpu(i) for i in range(16)], links)


def random_graph():
    """16 devices: a random spanning tree plus 12 random extra links, each 25, 50 or 100 GB/s."""
    rng = random.Random(35)
    edges = set()
    order = list(range(16))
    rng.shuffle(order)
    for k in range(1, 16):
        a, b = order[k], order[rng.randrange(k)]
        edges.add((min(a, b), max(a, b)))
    while len(edges) < 15 + 12:
        a, b = rng.sample(range(16), 2)
        edges.add((min(a, b), max(a, b)))
    write("random-16", [gpu(i) for i in range(16)],
          [link(f"g{a}", f"g{b}", rng.choice([25, 50, 100]), 1.0) for a, b in sorted(edges)])


if __name__ == "__main__":
    dgx1()
    pcie_tree()
    two_node_fat_tree()
    torus_failed_link()
    random_graph()
