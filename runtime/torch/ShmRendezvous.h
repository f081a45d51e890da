// ShmRendezvous: the ranks of a process group agree on a cpu-shm job through the c10d store.
#pragma once

#include "collplan.hpp"

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <cstdint>
#include <string>

namespace collplan::distributed {

/// The cpu-shm job one process group runs on.
struct ShmJob {
  std::string name;  ///< "torch-<16 random hex digits>" (ShmJobId's defaultJobName)
  uint64_t nonce;    ///< 64 random bits every rank checks in the control segment
};

/// Rank 0 draws an unguessable job name and nonce and sets them in `store` (the group's
/// PrefixStore, so every group has its own key); the other ranks wait for them there.
ShmJob agreeOnJob(c10d::Store &store, int rank);

/// This rank's world of `job` (cpu-shm, `size` ranks), with the bundle and topology named by
/// COLLPLAN_BUNDLE and COLLPLAN_TOPOLOGY when they are set (else the built-in plans).
collplan::World openWorld(const ShmJob &job, int rank, int size);

}  // namespace collplan::distributed
