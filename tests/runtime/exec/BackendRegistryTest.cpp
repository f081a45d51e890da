// The backend registry: names, properties, launch on cpu-threads and cpu-shm, sim's refusals.
#include "ExecTestSupport.h"
#include "runtime/backends/Backend.h"
#include "runtime/exec/RuntimeError.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace collplan;

namespace {

/// The registry's names: mpi only when CMake found MPI, cuda only when it found nvcc.
const std::string kNames = std::string("cpu-threads, cpu-shm, ") +
                           (findBackend("mpi") ? "mpi, " : "") +
                           (findBackend("cuda") ? "cuda, " : "") + "sim";

TEST(BackendRegistry, NamesAndProperties) {
  EXPECT_EQ(backendNames(), kNames);
  ASSERT_NE(findBackend("cpu-threads"), nullptr);
  EXPECT_FALSE(findBackend("cpu-threads")->oneRankPerProcess());
  EXPECT_TRUE(requireBackend("cpu-shm").oneRankPerProcess());
  EXPECT_TRUE(requireBackend("sim").simulated());
  EXPECT_FALSE(requireBackend("cpu-shm").simulated());
  EXPECT_EQ(findBackend("gpu"), nullptr);
  try {
    requireBackend("gpu");
    FAIL() << "no error for an unknown backend";
  } catch (const std::invalid_argument &e) {
    EXPECT_EQ(e.what(), "unknown backend \"gpu\" (expected one of: " + kNames + ")");
  }
  for (const Backend *b : backends()) {
    EXPECT_EQ(b->runsOnDevices(), b->name() == "cuda") << b->name();
    EXPECT_FALSE(b->summary().empty()) << b->name();
    EXPECT_GT(b->launchOverheadUs(), 0) << b->name();
  }
}

/// Every rank runs the body on its own session; results come back in rank order, across
/// threads and across processes alike, and a built-in allreduce runs through the sessions.
void expectLaunchRunsEveryRank(const Backend &backend) {
  const std::vector<std::string> reports = test::launchedAllReduceReports(backend, 3);
  EXPECT_EQ(reports, (std::vector<std::string>{"0:6", "1:6", "2:6"})) << backend.name();
}

/// The cuda backend's ranks are device buffers on streams: it refuses host ranks with a message
/// that says where its calls go, and a host backend opens no device job.
TEST(BackendRegistry, DeviceAndHostBackendsRefuseEachOthersJobs) {
  EXPECT_THROW(cpuThreadsBackend().openDeviceJob(2), std::logic_error);
  const Backend *cuda = findBackend("cuda");
  if (!cuda) GTEST_SKIP() << "this build has no cuda backend (nvcc was not found)";
  try {
    cuda->launch(2, [](RankSession &) { return std::string(); });
    FAIL() << "cuda launched host ranks";
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("collplan_cuda.h"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuda->openJob(JobOptions{}), RuntimeError);
}

TEST(BackendRegistry, CpuThreadsLaunchesEveryRank) { expectLaunchRunsEveryRank(cpuThreadsBackend()); }
TEST(BackendRegistry, CpuShmLaunchesEveryRank) { expectLaunchRunsEveryRank(cpuShmBackend()); }

/// Rank 1 fails; the launcher reports its message. On cpu-shm rank 0 then waits in a barrier
/// for rank 1, and the launcher stops it; threads cannot be stopped, so there rank 0 does not
/// wait (a real failure leaves its peers to the runtime's timeout).
TEST(BackendRegistry, AFailingRankIsReportedWithItsMessage) {
  const Plan barrier = disseminationBarrierPlan(2);
  for (const Backend *b : {&cpuThreadsBackend(), &cpuShmBackend()}) {
    const bool stoppable = b->oneRankPerProcess();
    try {
      b->launch(2, [&](RankSession &session) -> std::string {
        if (session.rank() == 1) throw std::runtime_error("rank one gives up");
        if (stoppable) session.run(session.prepare(barrier), CallBuffers{});
        return "fine";
      });
      ADD_FAILURE() << b->name() << ": no error";
    } catch (const std::exception &e) {
      EXPECT_NE(std::string(e.what()).find("rank one gives up"), std::string::npos)
          << b->name() << ": " << e.what();
    }
  }
}

TEST(BackendRegistry, JobsCheckTheirOptions) {
  JobOptions o;
  o.ranks = 2;
  o.rank = 1;
  try {
    cpuThreadsBackend().openJob(o);
    FAIL() << "cpu-threads took a rank";
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("rank must be -1, got 1"), std::string::npos);
  }
  o.rank = 2;
  o.job = "registry-test";
  try {
    cpuShmBackend().openJob(o);
    FAIL() << "cpu-shm took rank 2 of 2";
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("rank in [0, 2), got 2"), std::string::npos);
  }
}

TEST(BackendRegistry, SimTimesPlansAndRunsNone) {
  const Backend &sim = simBackend();
  const Plan plan = defaultPlan(CollectiveKind::AllGather, 4, std::nullopt, 0);
  const Topology topo = switchTopology(4);
  EXPECT_DOUBLE_EQ(sim.simulateUs(plan, topo, 1 << 20), simulateTimeUs(plan, topo, 1 << 20));
  EXPECT_THROW(sim.launch(2, [](RankSession &) { return std::string(); }), std::invalid_argument);
  try {
    sim.openJob(JobOptions{});
    FAIL() << "sim opened a job";
  } catch (const RuntimeError &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("moves no data"), std::string::npos);
  }
  EXPECT_THROW(cpuThreadsBackend().simulateUs(plan, topo, 1), std::logic_error);
}

}  // namespace
