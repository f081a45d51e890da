// plan-bench --baseline nccl: the refusals that need no GPU, and NCCL on real GPUs (skipped here).
#include "tuner/measure/Baseline.h"
#include "tuner/measure/BenchRequest.h"

// NCCL's collectives live beside the cuda backend; their names and placement checks are built
// in every build (only the calls need nccl.h).
#include "runtime/backends/cuda/NcclCollectives.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

using namespace collplan;
using namespace collplan::measure;

namespace {

/// A job on the devices the test names: allocates and times nothing (no GPU needed).
class FakeDeviceJob final : public DeviceJob {
public:
  explicit FakeDeviceJob(std::vector<int> devices) : devices_(std::move(devices)) {}
  std::string describe() const override { return "fake job"; }
  int ranks() const override { return int(devices_.size()); }
  int deviceOf(int rank) const override { return devices_[size_t(rank)]; }
  DeviceStream streamOf(int) const override { return nullptr; }
  void *allocate(int, size_t) override { throw std::logic_error("a fake job has no memory"); }
  void release(int, void *) override {}
  void copyIn(int, void *, const void *, size_t) override {}
  void copyOut(int, void *, const void *, size_t) override {}
  void enqueue(const Plan &, const std::vector<CallBuffers> &) override {}
  const std::vector<int> &ranksWith(int) const override { return devices_; }
  void enqueueDevice(int, const Plan &, const std::vector<CallBuffers> &, DeviceStream) override {}
  std::vector<double> timeCalls(int calls, const std::function<void(int)> &) override {
    return std::vector<double>(size_t(calls), 0.0);
  }
  void synchronize() override {}

private:
  std::vector<int> devices_;
};

/// A backend that runs on devices, its ranks on `devices` (one entry per rank).
class FakeDeviceBackend final : public Backend {
public:
  explicit FakeDeviceBackend(std::vector<int> devices) : devices_(std::move(devices)) {}
  std::string_view name() const override { return "fake-devices"; }
  std::string_view summary() const override { return "a test's device backend"; }
  double launchOverheadUs() const override { return 0; }
  std::unique_ptr<Job> openJob(const JobOptions &) const override { return nullptr; }
  std::vector<std::string> launch(int, const RankBody &) const override { return {}; }
  BackendKind kind() const override { return BackendKind::Devices; }
  const NativeCollectives *nativeCollectives() const override { return &cuda::ncclCollectives(); }
  std::unique_ptr<DeviceJob> openDeviceJob(int ranks) const override {
    EXPECT_EQ(ranks, int(devices_.size()));
    return std::make_unique<FakeDeviceJob>(devices_);
  }

private:
  std::vector<int> devices_;
};

bool ncclBuiltIn() { return cuda::ncclBuiltIn(); }
const NativeCollectives &nccl() { return cuda::ncclCollectives(); }
/// "NCCL 2.28.9": the library this process loaded; "" in a build without NCCL.
std::string ncclVersion() { return nccl().library(); }

/// The nccl baseline's check of `c` on `backend`, as plan-bench makes it before measuring.
void checkNcclBaseline(const BenchCase &c, const Backend &backend) {
  ncclBaseline().checkBackend(backend);
  ncclBaseline().checkCase(*makeRunner(backend), c, BaselineOptions{});
}

/// The nccl baseline's median time per size (µs) of `c` on `backend`.
std::vector<double> runNcclBaseline(const Backend &backend, const BenchCase &c,
                                    const std::vector<SizePoint> &sizes,
                                    const LoopSettings &settings) {
  return ncclBaseline().run(*makeRunner(backend), c, sizes, settings, BaselineOptions{}, {}).us;
}

BenchCase allreduceOn(int ranks) {
  BenchCase c;
  c.ranks = ranks;
  return c;
}

BenchRequest requestWith(const std::string &baseline, const std::string &backend) {
  BenchRequest r;
  r.ranks = 2;
  r.backend = backend;
  r.baseline = baseline;
  r.maxBytes = 64;
  r.warmup = 0;
  r.reps = 1;
  return r;
}

/// The BenchRequestError runBenchRequest throws, or "" when it throws none.
std::string requestError(const BenchRequest &r) {
  try {
    runBenchRequest(r);
  } catch (const BenchRequestError &e) {
    return e.what();
  }
  return "";
}

/// What `check` throws as std::invalid_argument, or "" when it throws nothing.
template <typename Check> std::string invalidArgument(const Check &check) {
  try {
    check();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}

/// The first registered backend whose ranks run on devices (cuda where nvcc was found).
const Backend *deviceBackend() {
  for (const Backend *b : backends())
    if (b->runsOnDevices()) return b;
  return nullptr;
}

/// Sets an environment variable for the scope and puts the old value back.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(NcclBaseline, UnknownBaselineListsMpiAndNccl) {
  EXPECT_EQ(requestError(requestWith("nvshmem", "cpu-threads")),
            "--baseline: unknown baseline \"nvshmem\" (expected: mpi, nccl)");
}

TEST(NcclBaseline, HostBackendsAreRefused) {
  for (const char *backend : {"cpu-threads", "cpu-shm"}) {
    const std::string error = requestError(requestWith("nccl", backend));
    EXPECT_NE(error.find("--baseline nccl times NCCL on the GPUs of the job, so it needs a backend "
                         "whose ranks run on devices ("),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("), not --backend " + std::string(backend)), std::string::npos) << error;
  }
  BenchRequest sim = requestWith("nccl", "sim");
  sim.topology = "ring:2";
  EXPECT_NE(requestError(sim).find("not --backend sim"), std::string::npos) << requestError(sim);
  const std::string direct =
      invalidArgument([] { checkNcclBaseline(allreduceOn(2), cpuThreadsBackend()); });
  EXPECT_NE(direct.find("not --backend cpu-threads"), std::string::npos) << direct;
}

TEST(NcclBaseline, RefusalNamesTheDeviceBackendsOfThisBuild) {
  const std::string error =
      invalidArgument([] { ncclBaseline().checkBackend(cpuThreadsBackend()); });
  if (const Backend *device = deviceBackend())
    EXPECT_NE(error.find("(--backend " + std::string(device->name())), std::string::npos) << error;
  else
    EXPECT_NE(error.find("none in this build"), std::string::npos) << error;
}

TEST(NcclBaseline, MpiBaselineIsRefusedOnDevices) {
  const Backend *device = deviceBackend();
  if (!device) GTEST_SKIP() << "this build registers no backend that runs on devices (no nvcc)";
  const std::string error = requestError(requestWith("mpi", std::string(device->name())));
  EXPECT_EQ(error, "--baseline mpi times MPI on host processes, not the devices of --backend " +
                       std::string(device->name()) + ": use --baseline nccl there");
}

/// NCCL's check of the devices of `job` (one rank per GPU), as the baseline reports it.
void checkNcclDevices(const DeviceJob &job) {
  asBaselineError(ncclBaseline(), [&] { nccl().checkJob(job); });
}

TEST(NcclBaseline, BuildWithoutNcclSaysSo) {
  if (ncclBuiltIn()) GTEST_SKIP() << "this build has NCCL (CMake found nccl.h and libnccl)";
  const FakeDeviceBackend backend({0, 1});
  const std::string expected = "--baseline nccl: this build has no NCCL (nccl.h and libnccl were "
                               "not found when CMake ran)";
  const std::string check = invalidArgument([&] { checkNcclBaseline(allreduceOn(2), backend); });
  EXPECT_EQ(check.rfind(expected, 0), 0u) << check;
  const std::string run = invalidArgument([&] {
    runNcclBaseline(backend, allreduceOn(2), sizePoints(allreduceOn(2), {64}), LoopSettings{});
  });
  EXPECT_EQ(run.rfind(expected, 0), 0u) << run;
  EXPECT_EQ(ncclVersion(), "");
}

TEST(NcclBaseline, TwoRanksOnOneDeviceAreRefused) {
  const std::string shared = invalidArgument([] { checkNcclDevices(FakeDeviceJob({0, 0})); });
  EXPECT_EQ(shared, "--baseline nccl: NCCL allows one rank per GPU, but ranks 0 and 1 are both on "
                    "device 0 (fake job): set COLLPLAN_CUDA_DEVICES to one device per rank (e.g. "
                    "COLLPLAN_CUDA_DEVICES=0,1) on a machine with 2 GPUs or more");
  const std::string later = invalidArgument([] { checkNcclDevices(FakeDeviceJob({0, 1, 2, 1})); });
  EXPECT_NE(later.find("ranks 1 and 3 are both on device 1"), std::string::npos) << later;
  EXPECT_NE(later.find("COLLPLAN_CUDA_DEVICES=0,1,2,3"), std::string::npos) << later;
  const std::string many =
      invalidArgument([] { checkNcclDevices(FakeDeviceJob(std::vector<int>(16, 0))); });
  EXPECT_NE(many.find("COLLPLAN_CUDA_DEVICES=0,1,...,15"), std::string::npos) << many;
  EXPECT_EQ(invalidArgument([] { checkNcclDevices(FakeDeviceJob({0, 1})); }), "");
  EXPECT_EQ(invalidArgument([] { checkNcclDevices(FakeDeviceJob({3, 0, 2})); }), "");
  EXPECT_EQ(invalidArgument([] { checkNcclDevices(FakeDeviceJob({0})); }), "");
}

// With NCCL built in, checkNcclBaseline reaches the job's devices: a fake job needs no GPU.
TEST(NcclBaseline, CheckLooksAtTheDevicesOfTheJob) {
  if (!ncclBuiltIn()) GTEST_SKIP() << "this build has no NCCL: the check stops before the devices";
  const std::string shared = invalidArgument(
      [] { checkNcclBaseline(allreduceOn(2), FakeDeviceBackend({1, 1})); });
  EXPECT_NE(shared.find("ranks 0 and 1 are both on device 1"), std::string::npos) << shared;
  for (int k = 0; k < kNumCollectiveKinds; ++k)
    for (int d = 0; d < kNumDTypes; ++d) {
      BenchCase c = allreduceOn(2);
      c.kind = CollectiveKind(k);
      c.dtype = DType(d);
      EXPECT_EQ(invalidArgument([&] { checkNcclBaseline(c, FakeDeviceBackend({0, 1})); }), "")
          << describe(c);
    }
  EXPECT_EQ(ncclVersion().rfind("NCCL 2.", 0), 0u) << ncclVersion();
}

TEST(NcclBaseline, FunctionNames) {
  EXPECT_EQ(nccl().functionName(CollectiveKind::AllReduce), "ncclAllReduce");
  EXPECT_EQ(nccl().functionName(CollectiveKind::ReduceScatter), "ncclReduceScatter");
  EXPECT_EQ(nccl().functionName(CollectiveKind::AllToAll), "ncclSend/ncclRecv (all-to-all)");
  for (int k = 0; k < kNumCollectiveKinds; ++k)
    EXPECT_EQ(nccl().functionName(CollectiveKind(k)).rfind("nccl", 0), 0u) << k;
}


/// The device backend and a rank count NCCL can run on this machine's GPUs (one per rank: 2
/// where two are visible, else 1), with COLLPLAN_CUDA_DEVICES set for them; skips otherwise.
class NcclOnGpus : public ::testing::Test {
protected:
  void SetUp() override {
    backend_ = deviceBackend();
    if (!backend_) GTEST_SKIP() << "this build registers no backend that runs on devices (no nvcc)";
    if (!ncclBuiltIn()) GTEST_SKIP() << "this build has no NCCL";
    std::string why;
    for (int ranks : {2, 1}) {
      env_.emplace(kDevices, ranks == 2 ? "0,1" : "0");
      try {
        backend_->openDeviceJob(ranks);
        ranks_ = ranks;
        return;
      } catch (const std::exception &e) {
        why = e.what();  // the one-rank attempt's reason, the last
      }
      env_.reset();
    }
    GTEST_SKIP() << "no GPU for NCCL here: " << why;
  }

  static constexpr const char *kDevices = "COLLPLAN_CUDA_DEVICES";
  const Backend *backend_ = nullptr;
  int ranks_ = 0;
  std::optional<ScopedEnv> env_;
};

// Every collective, a few dtypes and ops, with the first call of each size checked against the
// host reference (runNcclBaseline throws on a difference).
TEST_F(NcclOnGpus, EveryCollectiveMatchesTheReference) {
  LoopSettings settings;
  settings.warmup = 1;
  settings.reps = 3;
  int runs = 0;
  for (int k = 0; k < kNumCollectiveKinds; ++k)
    for (DType dtype : {DType::F32, DType::BF16, DType::I64, DType::U8})
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
        BenchCase c;
        c.kind = CollectiveKind(k);
        c.dtype = dtype;
        c.op = op;
        c.ranks = ranks_;
        c.root = ranks_ - 1;
        const std::vector<SizePoint> sizes = sizePoints(c, {8, 4096, 1 << 20});
        const std::vector<double> us = runNcclBaseline(*backend_, c, sizes, settings);
        ASSERT_EQ(us.size(), sizes.size()) << describe(c);
        for (double t : us) EXPECT_GT(t, 0) << describe(c);
        ++runs;
      }
  EXPECT_EQ(runs, kNumCollectiveKinds * 4 * 2);
}

TEST_F(NcclOnGpus, PlanBenchRowsCarryNcclTimes) {
  BenchRequest r = requestWith("nccl", std::string(backend_->name()));
  r.ranks = ranks_;
  r.maxBytes = 1 << 16;
  r.stepFactor = 16;
  r.reps = 3;
  const BenchOutcome outcome = runBenchRequest(r);
  EXPECT_EQ(outcome.info.baseline.rfind("ncclAllReduce (NCCL 2.", 0), 0u) << outcome.info.baseline;
  EXPECT_NE(outcome.info.baseline.find(", the same devices)"), std::string::npos);
  EXPECT_EQ(outcome.info.baselineColumn, "nccl");
  ASSERT_FALSE(outcome.rows.empty());
  for (const BenchRow &row : outcome.rows) {
    ASSERT_TRUE(row.baselineUs.has_value());
    EXPECT_GT(*row.baselineUs, 0);
  }
}

}  // namespace
