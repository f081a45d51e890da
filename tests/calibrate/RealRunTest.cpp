// Calibration of the real cpu-threads backend, by the library and by the tool as a user runs it:
// a usable topology comes out (no timing asserts). These tests time real transfers, so CTest
// runs them alone (RUN_SERIAL): beside another test on two cores the fit saw noise, not slopes.
#include "RunCalibrateTool.h"
#include "SweepSettings.h"
#include "tuner/calibrate/Accuracy.h"
#include "tuner/calibrate/Calibrate.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Topology.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace collplan;
using namespace collplan::calibrate;

TEST(Calibrate, RealCpuThreadsRunGivesAUsableTopology) {
  CalibrationSettings s = test::sweepSettings(2, 64u << 20);
  // Sizes up to 4 MiB, medians of 5: on a loaded machine the times of sizes up to 256 KiB were
  // noise, and the fit found no slope.
  s.sizes = {8, 65536, 1 << 20, 4 << 20};
  s.warmup = 1;
  s.reps = 5;
  Calibration c = calibrateMachine(s, backendMeasure(s));
  EXPECT_EQ(c.topology.numRanks(), 2);
  EXPECT_GT(c.model.memGBps, 0);
  EXPECT_GE(c.model.latencyUs, 0);
  auto rows = measureAccuracy(builtInAccuracyCases(2), c.topology, {8, 65536}, backendMeasure(s));
  ASSERT_EQ(rows.size(), 4u);
  for (const AccuracyRow &row : rows) {
    EXPECT_GT(row.measuredUs, 0);
    EXPECT_GT(row.predictedUs, 0);
  }
}

TEST(CalibrateTool, WritesATopologyThatLoadsAndSimulates) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("collplan-calibrate-real-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "local-calibrated.json").string();
  // Up to 4 MiB: a 2 MiB point takes far longer than a scheduling hiccup, so the fitted slope
  // stays positive on a loaded machine (with 256 KiB at most it once came out negative in CI).
  test::ToolResult r = test::runCalibrateTool("-n 2 -b 8 -e 4M -f 8 -w 1 --reps 5 -q -o " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("point-to-point"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("R^2"), std::string::npos) << r.output;
  Topology topo = loadTopologyFile(out);
  EXPECT_EQ(topo.numRanks(), 2);
  EXPECT_EQ(topo.name, "local-calibrated");
  EXPECT_GT(simulateTimeUs(ringAllReducePlan(2, ReduceOp::Sum), topo, 1 << 20), 0);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}
