// MpiNodes: which ranks of an mpi job share a machine (MPI-3 shared-memory split, or an emulated
// split of one machine into several), and the job's topology built from that.
#pragma once

#include "runtime/topology/Topology.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace collplan::mpi {

/// How an mpi job's processes are grouped into nodes, from the environment:
///   COLLPLAN_MPI_NODES=K       (default 0: the real machines) emulate K nodes: rank r of R is
///                              on node r * K / R (consecutive groups, as even as possible),
///                              within its real machine, so hierarchical plans and the split
///                              between shared memory and MPI run on one machine;
///   COLLPLAN_MPI_SHM=0|1       (default 1) ranks of one node exchange through shared memory
///                              (the cpu-shm transport); 0 sends every message through MPI.
/// Throws RuntimeError(InvalidArgument) naming the variable when a value is malformed.
struct NodeSettings {
  int emulatedNodes = 0;
  bool sharedMemory = true;
  static NodeSettings fromEnvironment();
};

/// The nodes of a communicator's ranks. Node ids count from 0 in the order of their lowest rank.
struct NodeLayout {
  std::vector<int> nodeOf;               ///< by rank
  std::vector<std::vector<int>> ranksOf;  ///< by node, ascending
  int nodes() const { return int(ranksOf.size()); }
  /// One line: "2 nodes: [0 1] [2 3]".
  std::string describe() const;
};

/// This rank's node: a communicator of the ranks on it (ordered by rank in `user`) and the
/// layout of every rank. Collective over `user` (works on a duplicate of it). Throws
/// RuntimeError when MPI fails (with MPI's reason), for an intercommunicator, or when
/// `emulatedNodes` exceeds the ranks.
struct NodeSplit {
  MPI_Comm node = MPI_COMM_NULL;  ///< owned by the caller (MPI_Comm_free)
  NodeLayout layout;
  /// Ranks on this rank's machine, whatever nodes are emulated on it (they share its cores).
  int machineRanks = 0;
};
NodeSplit splitByNode(MPI_Comm user, const NodeSettings &settings);

/// The job's topology: each node a copy of this machine as hwloc sees it (localMachine with the
/// node's rank count) joined by a network switch (an estimate: 12.5 GB/s, 2 µs per link). Built
/// on rank 0 and broadcast, so every rank holds the same topology (and fingerprint). Collective
/// over `comm`; throws RuntimeError on every rank when rank 0 could not build it.
Topology jobTopology(MPI_Comm comm, const NodeLayout &layout);

}  // namespace collplan::mpi
