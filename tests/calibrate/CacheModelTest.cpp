// The device cache figures calibrate writes: JSON round trip, validation, fingerprint, and the
// simulator switching from memory to cache bandwidth by the call's footprint (exact).
#include "tuner/calibrate/CalibrationPlans.h"

#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"
#include "runtime/topology/TopologyError.h"
#include "runtime/topology/Validate.h"

#include <gtest/gtest.h>

using namespace collplan;
using namespace collplan::calibrate;

namespace {

/// One device of 2 ranks: memory 10 GB/s, a 1 MiB cache at 40 GB/s.
Topology cachedDevice() {
  GeneratorParams params;
  params.ranksPerDevice = 2;
  params.memBandwidthGBps = 10;
  Topology topo = switchTopology(1, params);
  topo.devices[0].cacheBytes = 1 << 20;
  topo.devices[0].cacheBandwidthGBps = 40;
  validateTopology(topo, "cached");
  topo.finalize();
  return topo;
}

}  // namespace

TEST(CacheModel, SimulatorUsesCacheBandwidthWhenTheFootprintFits) {
  Topology topo = cachedDevice();
  Plan copy = localCopyPlan(2);  // each rank: 1 read + 1 write of M, both ranks share the device
  // Footprint 2 × M × 2 ranks = 1 MiB at M = 256 KiB: cache. 4 M bytes of traffic at 40 GB/s.
  const double m = 256 * 1024;
  EXPECT_NEAR(simulateTimeUs(copy, topo, uint64_t(m)), 4 * m / 40e3, 1e-9);
  // One byte per unit more and it no longer fits: memory bandwidth.
  EXPECT_NEAR(simulateTimeUs(copy, topo, uint64_t(m) + 1), 4 * (m + 1) / 10e3, 1e-9);
  // Without a cache the figures are unchanged.
  topo.devices[0].cacheBytes = 0;
  EXPECT_NEAR(simulateTimeUs(copy, topo, uint64_t(m)), 4 * m / 10e3, 1e-9);
}

TEST(CacheModel, JsonRoundTripAndFingerprint) {
  Topology topo = cachedDevice();
  nlohmann::json json = topologyToJson(topo);
  EXPECT_EQ(json["devices"][0]["cache_bytes"].get<double>(), 1 << 20);
  Topology back = topologyFromJson(json, "round-trip");
  EXPECT_EQ(back.devices[0].cacheBandwidthGBps, 40);
  EXPECT_EQ(back.fingerprint(), topo.fingerprint());
  Topology plain = topo;
  plain.devices[0].cacheBytes = 0;
  plain.devices[0].cacheBandwidthGBps = 0;
  EXPECT_NE(plain.fingerprint(), topo.fingerprint());
  EXPECT_FALSE(topologyToJson(plain)["devices"][0].contains("cache_bytes"));
}

TEST(CacheModel, ValidationNamesTheField) {
  Topology topo = cachedDevice();
  topo.devices[0].cacheBandwidthGBps = 0;
  try {
    validateTopology(topo, "t.json");
    FAIL() << "no error";
  } catch (const TopologyError &e) {
    EXPECT_EQ(e.field(), "devices[0].cache_bandwidth_gbps") << e.what();
  }
  topo.devices[0].cacheBytes = -1;
  EXPECT_THROW(validateTopology(topo, "t.json"), TopologyError);
  // An unvalidated topology reaching the simulator is a SimError, not a hang.
  Topology bad = cachedDevice();
  bad.devices[0].cacheBandwidthGBps = 0;
  EXPECT_THROW(simulateTimeUs(localCopyPlan(2), bad, 1024), SimError);
}
