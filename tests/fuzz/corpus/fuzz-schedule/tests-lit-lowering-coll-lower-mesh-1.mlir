coll.collective @ag allgather ranks 4 algorithm "mesh-single-step"

coll.collective @ar allreduce ranks 4 op sum algorithm "mesh-two-step"

{
  "format_version": 1,
  "name": "unequal-chips",
  "ranks": 4,
  "devices": [
    {"name": "c0", "kind": "chip", "ranks": [0, 1, 2], "node": 0, "mem_bandwidth_gbps": 1000},
    {"name": "c1", "kind": "chip", "ranks": [3], "node": 0, "mem_bandwidth_gbps": 1000}
  ],
  "links": [{"a": "c0", "b": "c1", "bandwidth_gbps": 100, "latency_us": 1.0}],
  "routing": "shortest_path",
  "intra_device": {"bandwidth_gbps": 500, "latency_us": 0.1}
}
