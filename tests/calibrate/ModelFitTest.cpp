// Known model figures in, the same figures out: measurements simulated on a calibrated topology
// with chosen parameters are fitted back by calibrateMachine (tiers, overhead, latency, pull).
#include "tuner/calibrate/Calibrate.h"
#include "SweepSettings.h"
#include "tuner/calibrate/TierFit.h"

#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

using namespace collplan;
using namespace collplan::calibrate;

namespace {

/// Sizes to 128 MiB: two points or more in every memory tier.
CalibrationSettings settings(int ranks) { return test::sweepSettings(ranks, 128u << 20); }

/// The truth. Cache thresholds sit at the geometric mean of the copy footprints (2·M·N) of two
/// neighbouring sizes, where calibrate places a break, so the recovered values are exact.
ModelFigures truth(int ranks) {
  ModelFigures f;
  f.latencyUs = 2.0;
  f.opOverheadUs = 0.05;
  f.pullGBps = 6;
  f.memGBps = 10;
  f.cacheGBps = 50;
  f.cacheBytes = 2.0 * ranks * std::sqrt(double(8u << 20) * double(32u << 20));
  f.nearCacheGBps = 200;
  f.nearCacheBytes = 2.0 * ranks * std::sqrt(double(128u << 10) * double(512u << 10));
  return f;
}

/// Every calibration plan "measured" by simulating it on the true topology.
MeasureFn simulatedOn(const Topology &topo) {
  return [topo](const Plan &plan, const std::vector<uint64_t> &sizes) {
    std::vector<double> t;
    for (uint64_t m : sizes) t.push_back(simulateTimeUs(plan, topo, m));
    return t;
  };
}

}  // namespace

TEST(ModelFit, TierFitRecoversThreeExactRegimes) {
  // α = 1 µs; 100 GB/s (1e-5 µs/B) below 64 KiB, 20 GB/s below 4 MiB, 5 GB/s from it.
  std::vector<double> x, t;
  for (double m = 8; m <= 64 << 20; m *= 2) {
    double slope = m < 65536 ? 1e-5 : m < (4 << 20) ? 5e-5 : 2e-4;
    x.push_back(m);
    t.push_back(1.0 + slope * m);
  }
  TierFit fit = fitTiers(x, t);
  ASSERT_EQ(fit.regimes(), 3u);
  EXPECT_NEAR(fit.alphaUs, 1.0, 1e-9);
  EXPECT_NEAR(fit.bandwidthGBps(0), 100, 1e-6);
  EXPECT_NEAR(fit.bandwidthGBps(1), 20, 1e-6);
  EXPECT_NEAR(fit.bandwidthGBps(2), 5, 1e-6);
  EXPECT_EQ(x[fit.breaks[0]], 65536);
  EXPECT_EQ(x[fit.breaks[1]], 4 << 20);
  EXPECT_LT(fit.maxAbsResidual, 1e-9);
}

TEST(ModelFit, TierFitKeepsOneLineWhenTheDataAreOneLine) {
  std::vector<double> x, t;
  for (double m = 8; m <= 64 << 20; m *= 2) x.push_back(m), t.push_back(3.0 + m / 7e3);
  TierFit fit = fitTiers(x, t);
  EXPECT_EQ(fit.regimes(), 1u);
  EXPECT_NEAR(fit.bandwidthGBps(0), 7, 1e-6);
}

TEST(ModelFit, KnownFiguresInSameFiguresOut) {
  for (int n : {2, 4}) {
    CalibrationSettings s = settings(n);
    ModelFigures known = truth(n);
    Topology topo = calibratedTopology(s, known);
    ASSERT_TRUE(topo.intraDevicePull);
    Calibration c = calibrateMachine(s, simulatedOn(topo));
    EXPECT_NEAR(c.model.opOverheadUs, known.opOverheadUs, 1e-9) << "n=" << n;
    EXPECT_NEAR(c.model.latencyUs, known.latencyUs, 1e-6) << "n=" << n;
    EXPECT_NEAR(c.model.memGBps / known.memGBps, 1.0, 1e-6) << "n=" << n;
    EXPECT_NEAR(c.model.cacheGBps / known.cacheGBps, 1.0, 1e-6) << "n=" << n;
    EXPECT_NEAR(c.model.nearCacheGBps / known.nearCacheGBps, 1.0, 1e-6) << "n=" << n;
    EXPECT_NEAR(c.model.cacheBytes / known.cacheBytes, 1.0, 1e-9) << "n=" << n;
    EXPECT_NEAR(c.model.nearCacheBytes / known.nearCacheBytes, 1.0, 1e-9) << "n=" << n;
    EXPECT_NEAR(c.model.pullGBps / known.pullGBps, 1.0, 1e-6) << "n=" << n;
    EXPECT_EQ(c.model.reduceGBps, 0) << "memory-bound reductions";
    // And the simulator on the derived topology reproduces every calibration measurement.
    for (const Measurement *m : {&c.pointToPoint, &c.copy, &c.copyChain, &c.reduce})
      for (size_t i = 0; i < m->bytes.size(); ++i)
        EXPECT_NEAR(m->simulatedUs[i] / m->timesUs[i], 1.0, 1e-6)
            << m->what << " n=" << n << " at " << m->bytes[i];
  }
}

TEST(ModelFit, FewerCoresThanRanksShareThePullRate) {
  // 4 ranks on 2 cores: a pull alone runs at its cap (6 GB/s) and all pulls together at most
  // 12 GB/s, so the ring shift's 4 concurrent pulls get 3 GB/s each. Calibrating measurements
  // simulated on that truth gives both back; clean pulls stay off (ranks migrate between cores).
  CalibrationSettings s = settings(4);
  s.cores = 2;
  ModelFigures known = truth(4);
  known.devicePullGBps = 12;
  Topology topo = calibratedTopology(s, known);
  EXPECT_EQ(topo.devices[0].pullGBps, 12);
  Calibration c = calibrateMachine(s, simulatedOn(topo));
  EXPECT_NEAR(c.model.pullGBps / 6, 1.0, 1e-6);
  EXPECT_NEAR(c.model.devicePullGBps / 12, 1.0, 1e-6);
  EXPECT_EQ(c.model.cleanPullBytes, 0);
  EXPECT_EQ(c.topology.intraDeviceCleanPullBytes, 0);
  // One rank per core: no shared limit, and unmodified inputs below the cache footprint are
  // local reads.
  Calibration own =
      calibrateMachine(settings(4), simulatedOn(calibratedTopology(settings(4), truth(4))));
  EXPECT_EQ(own.model.devicePullGBps, 0);
  EXPECT_NEAR(own.model.cleanPullBytes / truth(4).cacheBytes, 1.0, 1e-9);
}

namespace {

/// truth(ranks) with a far pull tier at the cache's break: ring-shift footprints (3·M·N: input,
/// output and its scratch) beyond the geometric mean of 8 MiB and 32 MiB pull at `farGBps`
/// each, slow enough that the pull, not the memory share, binds there.
ModelFigures truthWithPullTier(int ranks, double farGBps) {
  ModelFigures f = truth(ranks);
  f.pullCacheBytes = 3.0 * ranks * std::sqrt(double(8u << 20) * double(32u << 20));
  f.pullMemoryGBps = farGBps;
  return f;
}

}  // namespace

TEST(ModelFit, PullTierComesBackOut) {
  for (int n : {2, 4}) {
    CalibrationSettings s = settings(n);
    ModelFigures known = truthWithPullTier(n, 1.0);
    Topology topo = calibratedTopology(s, known);
    EXPECT_NEAR(topo.intraDevicePullCacheBytes, known.pullCacheBytes, 1e-6);
    EXPECT_EQ(topo.intraDevicePullMemoryGBps, 1.0);
    Calibration c = calibrateMachine(s, simulatedOn(topo));
    EXPECT_NEAR(c.model.pullGBps / known.pullGBps, 1.0, 1e-6) << "n=" << n;
    EXPECT_NEAR(c.model.pullMemoryGBps / known.pullMemoryGBps, 1.0, 1e-6) << "n=" << n;
    EXPECT_NEAR(c.model.pullCacheBytes / known.pullCacheBytes, 1.0, 1e-9) << "n=" << n;
    EXPECT_EQ(c.model.devicePullMemoryGBps, 0) << "one core per rank: no shared limit";
    for (size_t i = 0; i < c.pointToPoint.bytes.size(); ++i)
      EXPECT_NEAR(c.pointToPoint.simulatedUs[i] / c.pointToPoint.timesUs[i], 1.0, 1e-6)
          << "n=" << n << " at " << c.pointToPoint.bytes[i];
  }
}

TEST(ModelFit, OnePullTierWhenTheMemoryTiersExplainTheLargeSizes) {
  // truth() has one pull rate; the ring shift still slows at its largest sizes (the memory
  // tier), which the memory model reproduces: no far pull tier is invented.
  for (int n : {2, 4}) {
    Calibration c =
        calibrateMachine(settings(n), simulatedOn(calibratedTopology(settings(n), truth(n))));
    EXPECT_EQ(c.model.pullCacheBytes, 0) << "n=" << n;
    EXPECT_EQ(c.topology.intraDevicePullCacheBytes, 0) << "n=" << n;
  }
}

TEST(ModelFit, PullTierWithFewerCoresThanRanksSharesBothTiers) {
  // 4 ranks on 2 cores. Near: a pull alone 6 GB/s, all together 12. Far: a pull alone 1 GB/s,
  // all together 2 (each of the ring shift's 4 concurrent pulls gets 0.5 GB/s there).
  CalibrationSettings s = settings(4);
  s.cores = 2;
  ModelFigures known = truthWithPullTier(4, 1.0);
  known.devicePullGBps = 12;
  known.devicePullMemoryGBps = 2;
  Topology topo = calibratedTopology(s, known);
  EXPECT_EQ(topo.devices[0].pullMemoryGBps, 2);
  Calibration c = calibrateMachine(s, simulatedOn(topo));
  EXPECT_NEAR(c.model.pullGBps / 6, 1.0, 1e-6);
  EXPECT_NEAR(c.model.devicePullGBps / 12, 1.0, 1e-6);
  EXPECT_NEAR(c.model.pullMemoryGBps / 1, 1.0, 1e-6);
  EXPECT_NEAR(c.model.devicePullMemoryGBps / 2, 1.0, 1e-6);
  EXPECT_NEAR(c.model.pullCacheBytes / known.pullCacheBytes, 1.0, 1e-9);
}
