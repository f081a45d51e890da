// The mpi backend under mpirun: every collective against the reference with the plans the
// default rules pick, communicators beside the user's own MPI traffic, a bundle end to end.
#include "MpiTestSupport.h"
#include "ExecTestSupport.h"

#include "collplan_mpi.hpp"
#include "runtime/backends/Backend.h"
#include "runtime/backends/mpi/HybridTransport.h"
#include "runtime/plan/DefaultPlans.h"

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

const CollectiveKind kAllKinds[] = {
    CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
    CollectiveKind::AllToAll,  CollectiveKind::Broadcast, CollectiveKind::Reduce,
    CollectiveKind::Gather,    CollectiveKind::Scatter,   CollectiveKind::Barrier};

/// The sweep of the cpu tests (odd counts, 0, every placement, two roots) for three dtypes
/// (four bytes, two bytes through f32, eight bytes), plus messages larger than a slot's inline
/// payload (bodies sent apart) and an allreduce large enough for the direct plan.
std::vector<CollCase> mpiCases(int ranks) {
  std::vector<CollCase> cases;
  for (CollectiveKind kind : kAllKinds) {
    for (const CollCase &c : sweepCases(kind, ranks, /*allOps=*/false))
      if (c.dtype == DType::F32 || c.dtype == DType::BF16 || c.dtype == DType::I64)
        cases.push_back(c);
    if (kind == CollectiveKind::Barrier) continue;
    for (Placement p : {Placement::OutOfPlace, Placement::InPlace}) {
      CollCase big;  // 70001 f32 per block: 280 KB, beyond the 8 KiB inline payload
      big.kind = kind;
      big.count = 70001;
      big.placement = p;
      big.root = ranks - 1;
      cases.push_back(big);
    }
  }
  CollCase maxOp;  // the other reduction ops on one dtype
  for (ReduceOp op : {ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max}) {
    maxOp.op = op;
    maxOp.count = 263;
    cases.push_back(maxOp);
  }
  return cases;
}

TEST(MpiExec, EveryCollectiveMatchesTheReference) {
  const int ranks = worldSize();
  Comm comm = mpiComm(MPI_COMM_WORLD);
  ASSERT_EQ(comm.size(), ranks);
  ASSERT_EQ(comm.rank(), worldRank());
  std::set<std::string> algorithms;
  size_t checked = 0;
  for (const CollCase &c : mpiCases(ranks)) {
    const std::string error = runAndCheck(comm, c);
    EXPECT_EQ(error, "");
    if (!error.empty()) break;  // the communicator is unusable after a failure
    if (c.count > 0 || c.kind == CollectiveKind::Barrier) algorithms.insert(comm.lastAlgorithm());
    ++checked;
  }
  EXPECT_GT(checked, size_t(500));  // the sweep cannot silently shrink to nothing
  std::set<std::string> expected = {"recursive-doubling", "recursive-halving", "ring", "direct",
                                    "binomial-tree", "flat", "dissemination"};
  // Allreduce from 256 KiB on one machine (plans/defaults.json); across nodes the ring serves
  // it (min_nodes 2), and the emulated nodes are nodes of the job's topology.
  const char *nodes = std::getenv("COLLPLAN_MPI_NODES");
  const bool severalNodes = nodes && std::atoi(nodes) > 1;
  if (ranks >= 3 && !severalNodes) expected.insert("two-shot");
  EXPECT_EQ(algorithms, expected);
}

/// Two collplan communicators on one MPI communicator, and the user's own messages on it with
/// the tags collplan uses: each communicator's traffic stays its own.
TEST(MpiExec, CommunicatorsAndUserTrafficDoNotMix) {
  const int ranks = worldSize(), rank = worldRank();
  Comm a = mpiComm(MPI_COMM_WORLD), b = mpiComm(MPI_COMM_WORLD);
  const int next = (rank + 1) % ranks, prev = (rank + ranks - 1) % ranks;
  for (int round = 0; round < 20; ++round) {
    // User messages in flight, on tags 0..3 (collplan's channel 0 head, body, notice).
    std::vector<int> out(4, rank * 100 + round), in(4, -1);
    std::vector<MPI_Request> user(8);
    for (int tag = 0; tag < 4; ++tag) {
      MPI_Irecv(&in[size_t(tag)], 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &user[size_t(tag)]);
      MPI_Isend(&out[size_t(tag)], 1, MPI_INT, next, tag, MPI_COMM_WORLD, &user[size_t(4 + tag)]);
    }
    std::vector<int64_t> x(1000 + size_t(round)), sumA(x.size()), sumB(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = int64_t(i) * (rank + 1);
    a.allreduce(x.data(), sumA.data(), x.size(), COLLPLAN_SUM);
    b.allreduce(x.data(), sumB.data(), x.size(), COLLPLAN_MAX);
    MPI_Waitall(8, user.data(), MPI_STATUSES_IGNORE);
    const int64_t factorSum = int64_t(ranks) * (ranks + 1) / 2;
    for (size_t i = 0; i < x.size(); i += 97) {
      ASSERT_EQ(sumA[i], int64_t(i) * factorSum) << "round " << round << " element " << i;
      ASSERT_EQ(sumB[i], int64_t(i) * ranks) << "round " << round << " element " << i;
    }
    for (int tag = 0; tag < 4; ++tag) ASSERT_EQ(in[size_t(tag)], prev * 100 + round);
  }
}

/// A communicator over a sub-communicator (the even ranks, the odd ranks): rank and size are
/// the sub-communicator's.
TEST(MpiExec, SplitCommunicators) {
  const int rank = worldRank();
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int size = 0, subRank = 0;
  MPI_Comm_size(half, &size);
  MPI_Comm_rank(half, &subRank);
  {
    Comm comm = mpiComm(half);
    EXPECT_EQ(comm.size(), size);
    EXPECT_EQ(comm.rank(), subRank);
    CollCase c;
    c.kind = CollectiveKind::AllGather;
    c.count = 37;
    EXPECT_EQ(runAndCheck(comm, c), "");
  }
  MPI_Comm_free(&half);
}

/// The 2-rank allreduce bundle of the plan tests, retargeted at backend "mpi": its ring plans
/// serve f32 sums; other calls fall back to the default rules.
TEST(MpiExec, BundleRunsEndToEnd) {
  if (worldSize() != 2) GTEST_SKIP() << "the bundle is for 2 ranks (MpiErrors covers others)";
  const std::string path = bundleForJob(
      COLLPLAN_SOURCE_DIR "/tests/runtime/plan/data/allreduce_2rank.bundle.json", "mpi", "bundle");
  {
    Comm comm = mpiComm(MPI_COMM_WORLD, path.c_str());
    for (size_t count : {size_t(1), size_t(3), size_t(1023), size_t(1024), size_t(70001)}) {
      CollCase c;
      c.count = count;
      EXPECT_EQ(runAndCheck(comm, c), "");
      EXPECT_EQ(comm.lastAlgorithm(), "ring");
    }
    CollCase other;  // no bundle table: the default rules serve it
    other.kind = CollectiveKind::AllToAll;
    other.count = 5;
    EXPECT_EQ(runAndCheck(comm, other), "");
    EXPECT_EQ(comm.lastAlgorithm(), "direct");
  }
  std::remove(path.c_str());
}

/// The registry entry's launch (what plan-bench uses): every rank runs the body on its own
/// session, and every rank gets every rank's result.
TEST(MpiExec, LaunchRunsEveryRank) {
  const int ranks = worldSize();
  const Backend &mpi = requireBackend("mpi");
  EXPECT_TRUE(mpi.oneRankPerProcess());
  const std::vector<std::string> reports = test::launchedAllReduceReports(mpi, ranks);
  std::vector<std::string> expected;
  for (int r = 0; r < ranks; ++r)
    expected.push_back(std::to_string(r) + ":" + std::to_string(ranks * (ranks + 1) / 2));
  EXPECT_EQ(reports, expected);
}

}  // namespace

/// The job's nodes: every rank on one machine, or the emulated split COLLPLAN_MPI_NODES asks
/// for (rank r of R on node r * K / R); peers on the rank's node are reached through shared
/// memory unless COLLPLAN_MPI_SHM=0, the others through MPI.
TEST(MpiExec, NodesAndRoutes) {
  const char *emulated = std::getenv("COLLPLAN_MPI_NODES");
  const char *shm = std::getenv("COLLPLAN_MPI_SHM");
  const int nodes = emulated ? std::atoi(emulated) : 1;
  const bool shared = !(shm && std::string(shm) == "0");
  const int ranks = worldSize(), rank = worldRank();
  auto nodeOf = [&](int r) { return int(int64_t(r) * nodes / ranks); };

  const std::optional<Topology> topology = requireBackend("mpi").launchTopology();
  ASSERT_TRUE(topology);
  ASSERT_EQ(topology->numRanks(), ranks);
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(topology->nodeOf(r), nodeOf(r)) << "rank " << r;

  mpi::HybridTransport transport(MPI_COMM_WORLD, defaultWaitPolicy(),
                                 mpi::NodeSettings::fromEnvironment());
  EXPECT_EQ(transport.layout().nodes(), nodes);
  const bool aloneOnNode = transport.layout().ranksOf[size_t(nodeOf(rank))].size() == 1;
  EXPECT_EQ(transport.sharedMemory(), shared && !aloneOnNode);
  for (int peer = 0; peer < ranks; ++peer) {
    if (peer == rank) continue;
    const std::string route = transport.describe(transport.connect(peer, 0, true));
    const bool viaShm = shared && nodeOf(peer) == nodeOf(rank);
    EXPECT_NE(route.find(viaShm ? "shared memory" : "MPI"), std::string::npos) << route;
  }
}
