// calibrateMachine on synthetic measurements (exact fits, a topology that loads, validates and
// simulates) and bad settings (the real cpu-threads run is in RealRunTest.cpp).
#include "tuner/calibrate/Accuracy.h"
#include "tuner/calibrate/Calibrate.h"
#include "SweepSettings.h"

#include "runtime/backends/Backend.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Validate.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace collplan;
using namespace collplan::calibrate;

namespace {

CalibrationSettings settings(int ranks) { return test::sweepSettings(ranks, 64u << 20); }

/// Exact lines: transfers α = 4 us at 3 GB/s, copies 0.5 us at 5 GB/s, reductions 0.5 us at
/// 1 GB/s (per message byte).
MeasureFn synthetic() {
  return [](const Plan &plan, const std::vector<uint64_t> &sizes) {
    double alpha = 0.5, gbps = 5;
    if (plan.algorithm == "calibration-ring-shift") alpha = 4, gbps = 3;
    if (plan.algorithm == "calibration-reduce") gbps = 1;
    std::vector<double> t;
    for (uint64_t m : sizes) t.push_back(alpha + double(m) / (gbps * 1e3));
    return t;
  };
}

std::string tempPath(const std::string &name) {
  return "/tmp/collplan-calibrate-test-" + std::to_string(::getpid()) + "-" + name;
}

}  // namespace

TEST(Calibrate, SyntheticFitsAreExact) {
  Calibration c = calibrateMachine(settings(2), synthetic());
  EXPECT_NEAR(c.pointToPoint.fit.alphaUs, 4.0, 1e-9);
  EXPECT_NEAR(c.pointToPoint.fit.bandwidthGBps, 3.0, 1e-9);
  EXPECT_NEAR(c.copy.fit.bandwidthGBps, 5.0, 1e-9);
  EXPECT_NEAR(c.reduce.fit.bandwidthGBps, 1.0, 1e-9);
  EXPECT_NEAR(c.copyTrafficGBps, 2 * 2 * 5.0, 1e-9);
  EXPECT_NEAR(c.reduceCombineGBps, 2 * 1.0, 1e-9);
  // The ring shift's empty time (4 us, no per-op overhead here) is two hand-offs under the
  // handshake: its data's ready flag and the release coming back.
  EXPECT_NEAR(c.model.latencyUs, 2.0, 1e-9);
  EXPECT_TRUE(c.topology.intraDeviceHandshake);
  for (const Device &d : c.topology.devices)  // one thread per CPU rank: channels take turns
    EXPECT_EQ(d.enginesPerRank, 1) << d.name;
  EXPECT_GT(c.model.memGBps, 0);
}

TEST(Calibrate, WrittenTopologyLoadsValidatesAndSimulates) {
  Calibration c = calibrateMachine(settings(4), synthetic());
  std::string path = tempPath("topo.json");
  {
    std::ofstream out(path);
    out << topologyToJson(c.topology).dump(2);
  }
  Topology loaded = loadTopologyFile(path);
  std::remove(path.c_str());
  EXPECT_NO_THROW(validateTopology(loaded, path));
  EXPECT_EQ(loaded.numRanks(), 4);
  EXPECT_EQ(loaded.fingerprint(), c.topology.fingerprint());
  EXPECT_TRUE(loaded.features.duplication);
  for (const AccuracyCase &a : builtInAccuracyCases(4)) {
    double t = simulateTimeUs(a.plan, loaded, 1 << 20);
    EXPECT_GT(t, 0) << a.label;
    EXPECT_TRUE(std::isfinite(t)) << a.label;
  }
  EXPECT_TRUE(std::isfinite(calibrationToJson(c)["model"]["mem_bandwidth_gbps"].get<double>()));
}

TEST(Calibrate, BadSettingsAreClearErrors) {
  auto expectError = [](CalibrationSettings s, const std::string &fragment) {
    try {
      checkSettings(s);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  CalibrationSettings s = settings(2);
  s.ranks = 1;
  expectError(s, "--ranks must be at least 2");
  s.ranks = 5000;
  expectError(s, "--ranks must be at most 1024");
  s = settings(2);
  s.backend = "gpu";
  expectError(s, "unknown backend \"gpu\" (expected one of: " + backendNames() + ")");
  s.backend = "sim";
  expectError(s, "calibrate measures a backend that runs plans; sim only simulates them");
  s = settings(2);
  s.sizes = {64};
  expectError(s, "two distinct sizes");
  s = settings(2);
  s.reps = -1;
  expectError(s, "--reps");
}

TEST(Calibrate, TimesThatDoNotGrowAreAnError) {
  MeasureFn flat = [](const Plan &, const std::vector<uint64_t> &sizes) {
    return std::vector<double>(sizes.size(), 5.0);
  };
  try {
    calibrateMachine(settings(2), flat);
    FAIL() << "no error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("do not grow"), std::string::npos) << e.what();
  }
}
