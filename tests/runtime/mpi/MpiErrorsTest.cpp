// The mpi backend's failures: mismatched calls fail on every rank (within a fraction of a
// second, not at the timeout), bad bundles and arguments are refused before any message moves.
#include "EditedBundles.h"
#include "MpiTestSupport.h"
#include "collplan_mpi.hpp"
#include "runtime/backends/mpi/MpiError.h"

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

struct Failure {
  collplan_status_t status = COLLPLAN_SUCCESS;
  std::string message;
  double seconds = 0;
};

/// Runs `mismatched` on a fresh communicator, then (when it returned on this rank: its part
/// of the call may finish before a peer notices) a barrier; returns the first failure.
Failure failureOf(const std::function<void(Comm &)> &mismatched) {
  Comm comm = mpiComm(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  Failure f;
  try {
    mismatched(comm);
    comm.barrier();
  } catch (const Error &e) {
    f.status = e.status();
    f.message = e.what();
  }
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return f;
}

/// Every rank fails with InvalidArgument, a message containing `expected`, well before the
/// 30 s timeout; and a new communicator then works (nothing of the failed one is left over).
void expectEveryRankFails(const std::function<void(Comm &)> &mismatched,
                          const std::string &expected) {
  const Failure f = failureOf(mismatched);
  EXPECT_EQ(f.status, COLLPLAN_ERROR_INVALID_ARGUMENT) << f.message;
  EXPECT_NE(f.message.find(expected), std::string::npos)
      << "rank " << worldRank() << ": \"" << f.message << "\" lacks \"" << expected << "\"";
  EXPECT_LT(f.seconds, 10.0) << f.message;
  Comm fresh = mpiComm(MPI_COMM_WORLD);
  int one = 1, sum = 0;
  fresh.allreduce(&one, &sum, 1, COLLPLAN_SUM);
  EXPECT_EQ(sum, worldSize());
}

TEST(MpiErrors, DifferentCountsFailOnEveryRank) {
  expectEveryRankFails(
      [](Comm &comm) {
        std::vector<float> in(40, 1.0f), out(40);
        comm.allreduce(in.data(), out.data(), worldRank() == 0 ? 10 : 20, COLLPLAN_SUM);
      },
      "different counts or dtypes");
}

TEST(MpiErrors, DifferentCollectivesFailOnEveryRank) {
  expectEveryRankFails(
      [](Comm &comm) {
        std::vector<float> in(8 * size_t(worldSize()), 1.0f), out(in.size());
        if (worldRank() == 0)
          comm.allreduce(in.data(), out.data(), 8, COLLPLAN_SUM);
        else
          comm.allgather(in.data(), out.data(), 8);
      },
      "allgather");
}

/// Every rank believes it is the root: each only waits to receive, so no message shows the
/// mismatch; the ranks' announcements of the call they wait in do.
TEST(MpiErrors, DifferentRootsFailOnEveryRank) {
  expectEveryRankFails(
      [](Comm &comm) {
        std::vector<float> in(8, 1.0f), out(8);
        comm.reduce(in.data(), out.data(), 8, COLLPLAN_F32, COLLPLAN_SUM, worldRank());
      },
      "root");
}

/// Rank 0 skips a call that moves nothing (count 0, still numbered): its next call's messages
/// carry another call number than its peers'.
TEST(MpiErrors, ASkippedCallFailsOnEveryRank) {
  expectEveryRankFails(
      [](Comm &comm) {
        std::vector<float> in(8, 1.0f), out(8);
        if (worldRank() != 0) comm.allreduce(in.data(), out.data(), 0, COLLPLAN_SUM);
        comm.allreduce(in.data(), out.data(), 8, COLLPLAN_SUM);
      },
      "a rank skipped a call or made an extra one");
}

/// Writes the 2-rank allreduce bundle of the plan tests with `backend`; returns its path.
std::string bundleFor(const std::string &backend) {
  return bundleForJob(COLLPLAN_SOURCE_DIR "/tests/runtime/plan/data/allreduce_2rank.bundle.json",
                      backend, backend);
}

/// The error creating a communicator with `bundle` (every rank alike).
std::string creationError(const char *bundle) {
  collplan_comm_t comm = nullptr;
  const collplan_status_t status = collplan_comm_create_mpi(MPI_COMM_WORLD, bundle, &comm);
  EXPECT_EQ(status, COLLPLAN_ERROR_FILE);
  EXPECT_EQ(comm, nullptr);
  if (comm) collplan_comm_destroy(comm);
  return collplan_last_error();
}

TEST(MpiErrors, BundleForAnotherRankCountOrBackendIsRefused) {
  const std::string mpiBundle = bundleFor("mpi"), threadsBundle = bundleFor("cpu-threads");
  if (worldSize() != 2) {
    EXPECT_NE(creationError(mpiBundle.c_str())
                  .find("rank count mismatch: the bundle was tuned for 2 ranks but " +
                        std::to_string(worldSize()) + " were expected"),
              std::string::npos)
        << collplan_last_error();
  }
  EXPECT_NE(creationError(threadsBundle.c_str())
                .find(worldSize() == 2 ? "backend mismatch: the bundle was tuned for backend "
                                         "\"cpu-threads\" but \"mpi\" was expected"
                                       : "rank count mismatch"),
            std::string::npos)
      << collplan_last_error();
  EXPECT_NE(creationError("/nonexistent/bundle.json").find("/nonexistent/bundle.json"),
            std::string::npos);
  std::remove(mpiBundle.c_str());
  std::remove(threadsBundle.c_str());
}

/// A bundle tuned for another topology (here the test data's made-up fingerprint) is refused
/// on every rank: the job's topology (its nodes, this machine's sockets) is not the one it
/// was tuned for.
TEST(MpiErrors, BundleForAnotherTopologyIsRefused) {
  const char *source = COLLPLAN_SOURCE_DIR "/tests/runtime/plan/data/allreduce_2rank.bundle.json";
  nlohmann::json bundle = nlohmann::json::parse(std::ifstream(source));
  bundle["backend"] = "mpi";
  bundle["ranks"] = worldSize();
  const std::string path = "/tmp/collplan-mpi-topology-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << bundle.dump();
  const std::string error = creationError(path.c_str());
  EXPECT_NE(error.find("topology fingerprint mismatch: the bundle was tuned for topology "
                       "\"example-fingerprint\""),
            std::string::npos)
      << error;
  std::remove(path.c_str());
}

/// When one rank cannot load its bundle, every rank's creation fails at once and names it,
/// instead of the others waiting in their first call for a rank that gave up.
TEST(MpiErrors, OneRanksBadBundleFailsEveryRank) {
  if (worldSize() != 2) GTEST_SKIP() << "the good bundle is for 2 ranks";
  const std::string good = bundleFor("mpi");
  const int last = 1;
  const std::string missing = "/nonexistent/rank-" + std::to_string(last) + ".json";
  const auto start = std::chrono::steady_clock::now();
  const std::string error =
      creationError(worldRank() == last ? missing.c_str() : good.c_str());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(error.find(missing), std::string::npos) << error;
  if (worldRank() != last) {
    EXPECT_NE(error.find("creating the mpi communicator: rank 1 failed: "), std::string::npos)
        << error;
  }
  EXPECT_LT(seconds, 5.0);
  std::remove(good.c_str());
}

/// A directory for proof records that every rank of the job names (rank 0 makes it).
std::string sharedProofDir() {
  char dir[64] = "/tmp/collplan-mpi-proofs-XXXXXX";
  if (worldRank() == 0 && !mkdtemp(dir)) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  setenv("COLLPLAN_PROOF_DIR", dir, 1);
  return dir;
}

/// Bundles that a whole load refuses are refused by every rank, although each loads only its
/// own program (each rank writes its own copy: the proof is keyed by content, not by path);
/// without the proof a reduction counted twice returned wrong data on every call. The sound
/// bundle they were edited from runs.
TEST(MpiErrors, EditedBundlesAreRefusedOnEveryRank) {
  sharedProofDir();
  const std::string fingerprint = requireBackend("mpi").launchTopology()->fingerprint();
  for (const BundleEdit &edit : unprovableEdits()) {
    if (worldSize() < edit.minRanks) continue;
    nlohmann::json bundle = ringBundle(worldSize(), "mpi", fingerprint);
    edit.apply(bundle);
    const std::string path = writeBundle(bundle, "mpi-edited");
    const std::string error = creationError(path.c_str());
    EXPECT_NE(error.find(edit.expected), std::string::npos) << edit.name << ": " << error;
    std::remove(path.c_str());
  }
  const std::string sound = writeBundle(ringBundle(worldSize(), "mpi", fingerprint), "mpi-sound");
  Comm comm = mpiComm(MPI_COMM_WORLD, sound.c_str());
  float one = 1, sum = 0;
  comm.allreduce(&one, &sum, 1, COLLPLAN_SUM);
  EXPECT_EQ(sum, float(worldSize()));
  EXPECT_EQ(comm.lastAlgorithm(), "ring");
  std::remove(sound.c_str());
}

TEST(MpiErrors, BadArgumentsAreRefused) {
  collplan_comm_t comm = nullptr;
  EXPECT_EQ(collplan_comm_create_mpi(MPI_COMM_WORLD, nullptr, nullptr),
            COLLPLAN_ERROR_NULL_POINTER);
  EXPECT_EQ(collplan_comm_create_mpi(MPI_COMM_NULL, nullptr, &comm),
            COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(collplan_last_error(), "collplan_comm_create_mpi: comm is MPI_COMM_NULL");
  // A world of another backend cannot be given an MPI rank it does not have.
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "mpi";
  config.ranks = worldSize() + 1;
  config.rank = worldRank();
  collplan_world_t world = nullptr;
  EXPECT_EQ(collplan_world_create(&config, &world), COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(collplan_last_error()).find("processes of its MPI communicator"),
            std::string::npos)
      << collplan_last_error();
}

/// An intercommunicator (two halves of MPI_COMM_WORLD) is refused on every rank with the reason
/// and the fix, not passed to MPI calls that need an intracommunicator (Open MPI 4.1 crashes in
/// MPI_Comm_split_type on one).
TEST(MpiErrors, AnIntercommunicatorIsRefused) {
  const int half = worldRank() < (worldSize() + 1) / 2 ? 0 : 1;
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, half, worldRank(), &local);
  const int remoteLeader = half == 0 ? (worldSize() + 1) / 2 : 0;
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remoteLeader, 7, &inter);
  collplan_comm_t comm = nullptr;
  EXPECT_EQ(collplan_comm_create_mpi(inter, nullptr, &comm), COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(comm, nullptr);
  const std::string error = collplan_last_error();
  EXPECT_NE(error.find("intercommunicator"), std::string::npos) << error;
  EXPECT_NE(error.find("MPI_Intercomm_merge"), std::string::npos) << error;
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

/// MPI's failures become RuntimeError(System) naming the call and MPI's own reason.
TEST(MpiErrors, MpiFailuresNameTheCallAndMpisReason) {
  try {
    mpi::checkMpi(MPI_ERR_TRUNCATE, "MPI_Irecv", [] { return std::string("rank 0 receiving"); });
    FAIL() << "no error";
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::System);
    char reason[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(MPI_ERR_TRUNCATE, reason, &length);
    EXPECT_EQ(std::string(e.what()),
              "rank 0 receiving: MPI_Irecv: " + std::string(reason, size_t(length)));
  }
}

/// collplan_world_create with backend "mpi" and no communicator: MPI_COMM_WORLD.
TEST(MpiErrors, WorldOfConfigUsesMpiCommWorld) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "mpi";
  config.ranks = worldSize();
  config.rank = worldRank();
  World world(config);
  Comm comm = world.comm(worldRank());
  int64_t mine = worldRank(), all = 0;
  comm.allreduce(&mine, &all, 1, COLLPLAN_SUM);
  EXPECT_EQ(all, int64_t(worldSize()) * (worldSize() - 1) / 2);
}

}  // namespace
