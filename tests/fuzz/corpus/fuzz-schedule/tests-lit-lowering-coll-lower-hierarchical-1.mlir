coll.collective @ag allgather ranks 4 algorithm "hierarchical"

coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

coll.collective @ar allreduce ranks 8 op sum algorithm "hierarchical"

coll.collective @ar allreduce ranks 4 op sum algorithm "hierarchical"

{
  "format_version": 1,
  "name": "unequal-nodes",
  "ranks": 4,
  "devices": [
    {"name": "g0", "kind": "gpu", "ranks": [0, 1], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "g1", "kind": "gpu", "ranks": [2], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "g2", "kind": "gpu", "ranks": [3], "node": 1, "mem_bandwidth_gbps": 1000}
  ],
  "links": [
    {"a": "g0", "b": "g1", "bandwidth_gbps": 100, "latency_us": 1.0},
    {"a": "g1", "b": "g2", "bandwidth_gbps": 100, "latency_us": 1.0}
  ],
  "routing": "shortest_path",
  "intra_device": {"bandwidth_gbps": 500, "latency_us": 0.1}
}
