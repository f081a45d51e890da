// Every plan a cpu-shm job runs is proven: ranks that load only their own program refuse a
// bundle that a whole load refuses, and a sound bundle is proven once and recorded.
#include "EditedBundles.h"
#include "ExecTestSupport.h"

#include "runtime/plan/ProofRecord.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dirent.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::test;

namespace {

constexpr int kRanks = 3;

/// A fresh directory for proof records, named by COLLPLAN_PROOF_DIR for this test.
std::string freshProofDir() {
  char pattern[] = "/tmp/collplan-proofs-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  setenv(kProofDirVariable, dir.c_str(), 1);
  return dir;
}

size_t recordsIn(const std::string &dir) {
  size_t n = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (const dirent *e = readdir(d))
      if (std::string(e->d_name).find(".r") == 64) ++n;
    closedir(d);
  }
  return n;
}

/// Creates rank `rank`'s cpu-shm world of `job` with `bundle`: its status and message.
std::pair<collplan_status_t, std::string> createWorld(const std::string &job, int rank,
                                                      const std::string &bundle) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cpu-shm";
  config.ranks = kRanks;
  config.rank = rank;
  config.shm_job = job.c_str();
  config.bundle_file = bundle.c_str();
  collplan_world_t world = nullptr;
  const collplan_status_t status = collplan_world_create(&config, &world);
  std::pair<collplan_status_t, std::string> result{status, collplan_last_error()};
  if (world) collplan_world_destroy(world);
  return result;
}

class ShmEditedBundle : public ::testing::TestWithParam<size_t> {};

/// Without a proof on the ranks' side, each of these ran with every call returning SUCCESS
/// and wrong data (or hung); now every rank's creation fails naming the file and the fault.
TEST_P(ShmEditedBundle, IsRefusedByEveryRank) {
  const BundleEdit &edit = unprovableEdits()[GetParam()];
  ASSERT_LE(edit.minRanks, kRanks);
  const std::string dir = freshProofDir();
  nlohmann::json bundle = ringBundle(kRanks, "cpu-shm", "any");
  edit.apply(bundle);
  const std::string path = writeBundle(bundle, "edited");
  const std::string job = uniqueJob("edited");
  const std::string failed = runInProcesses(kRanks, [&](int rank) {
    const auto [status, message] = createWorld(job, rank, path);
    if (status == COLLPLAN_ERROR_FILE && message.find(path) != std::string::npos &&
        message.find(edit.expected) != std::string::npos)
      return 0;
    std::fprintf(stderr, "rank %d: status %d: %s\n", rank, int(status), message.c_str());
    return 1;
  });
  EXPECT_EQ(failed, "") << edit.name;
  EXPECT_EQ(recordsIn(dir), 0u) << "a refused bundle was recorded as proven";
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Edits, ShmEditedBundle,
                         ::testing::Range(size_t(0), unprovableEdits().size()),
                         [](const auto &info) {
                           std::string name = unprovableEdits()[info.param].name;
                           for (char &c : name)
                             if (c == ' ') c = '_';
                           return name;
                         });

/// The sound bundle runs (every result checked) and is proven once: one record, for its
/// content, whichever rank wrote it.
TEST(ShmProvenBundle, RunsAndIsRecordedOnce) {
  const std::string dir = freshProofDir();
  const std::string path = writeBundle(ringBundle(kRanks, "cpu-shm", "any"), "sound");
  const std::string job = uniqueJob("sound");
  const std::string failed = runInProcesses(kRanks, [&](int rank) {
    World world = World::shm(job.c_str(), kRanks, rank, path.c_str());
    Comm comm = world.comm(rank);
    for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather}) {
      CollCase c;
      c.kind = kind;
      c.count = 1000;
      const std::string wrong = runAndCheck(comm, c);
      if (!wrong.empty() || comm.lastAlgorithm() != "ring") {
        std::fprintf(stderr, "rank %d: %s (%s)\n", rank, wrong.c_str(),
                     comm.lastAlgorithm().c_str());
        return 1;
      }
    }
    return 0;
  });
  EXPECT_EQ(failed, "");
  EXPECT_EQ(recordsIn(dir), 1u);
  std::remove(path.c_str());
}

}  // namespace
