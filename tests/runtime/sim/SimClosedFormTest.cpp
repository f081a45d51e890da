// With contention and memory off (or no shared links), simulated times equal the α-β closed forms.
#include "SimTestPlans.h"
#include "SimTestTopologies.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace collplan {
namespace {

using namespace simtest;

constexpr double kBandwidthGBps = 25;  // B
constexpr double kLatencyUs = 1.5;     // per hop
constexpr double kBytesPerUs = kBandwidthGBps * 1e3;
const int kRankCounts[] = {2, 3, 4, 8, 16};
const uint64_t kSizes[] = {0, 8, 4096, 1000003, uint64_t(1) << 26};

/// The α-β model itself, and the same model with link contention on (these topologies and plans
/// never put two flows on one link direction at once, so sharing must not change anything).
const SimOptions kModes[] = {SimOptions{false, false}, SimOptions{true, false}};

void expectExact(double simulated, double closedForm, const std::string &what) {
  EXPECT_NEAR(simulated, closedForm, 1e-9 * std::max(1.0, std::abs(closedForm))) << what;
}

std::string label(const char *name, int n, uint64_t bytes, const SimOptions &options) {
  return std::string(name) + " n=" + std::to_string(n) + " M=" + std::to_string(bytes) +
         " contention=" + std::to_string(options.contention);
}

TEST(SimClosedForm, RingAllReduceOnRing) {
  for (int n : kRankCounts) {
    Topology topo = ring(n, linkParams(kBandwidthGBps, kLatencyUs));
    Plan plan = ringAllReduce(n);
    for (uint64_t m : kSizes)
      for (const SimOptions &options : kModes)
        expectExact(simulateTimeUs(plan, topo, m, options),
                    2.0 * (n - 1) * (kLatencyUs + double(m) / (n * kBytesPerUs)),
                    label("ring allreduce", n, m, options));
  }
}

TEST(SimClosedForm, PipelinedRingAllReducePaysLatencyPerSlice) {
  // k slices: every op moves M/(nk) and pays α, so T = 2(n-1)(kα + M/(nB)).
  for (int n : {2, 4, 8}) {
    Topology topo = ring(n, linkParams(kBandwidthGBps, kLatencyUs));
    for (int slices : {2, 4}) {
      Plan plan = ringAllReduce(n, slices);
      for (uint64_t m : {uint64_t(4096), uint64_t(1) << 24})
        for (const SimOptions &options : kModes)
          expectExact(simulateTimeUs(plan, topo, m, options),
                      2.0 * (n - 1) * (slices * kLatencyUs + double(m) / (n * kBytesPerUs)),
                      label("sliced ring allreduce", n, m, options) + " k=" +
                          std::to_string(slices));
    }
  }
}

TEST(SimClosedForm, RingAllGatherAndReduceScatterOnRing) {
  for (int n : kRankCounts) {
    Topology topo = ring(n, linkParams(kBandwidthGBps, kLatencyUs));
    Plan gather = ringAllGather(n), scatter = ringReduceScatter(n);
    for (uint64_t m : kSizes)
      for (const SimOptions &options : kModes) {
        double closedForm = (n - 1) * (kLatencyUs + double(m) / (n * kBytesPerUs));
        expectExact(simulateTimeUs(gather, topo, m, options), closedForm,
                    label("ring allgather", n, m, options));
        expectExact(simulateTimeUs(scatter, topo, m, options), closedForm,
                    label("ring reduce-scatter", n, m, options));
      }
  }
}

TEST(SimClosedForm, BinomialBroadcastOnFullyConnected) {
  for (int n : kRankCounts) {
    Topology topo = fullyConnected(n, linkParams(kBandwidthGBps, kLatencyUs));
    int rounds = int(std::ceil(std::log2(double(n))));
    for (int root : {0, n - 1}) {
      Plan plan = binomialBroadcast(n, root);
      for (uint64_t m : kSizes)
        for (const SimOptions &options : kModes)
          expectExact(simulateTimeUs(plan, topo, m, options),
                      rounds * (kLatencyUs + double(m) / kBytesPerUs),
                      label("binomial broadcast", n, m, options) + " root=" +
                          std::to_string(root));
    }
  }
}

TEST(SimClosedForm, RecursiveDoublingAllReduceOnFullyConnected) {
  for (int n : {2, 4, 8, 16}) {
    Topology topo = fullyConnected(n, linkParams(kBandwidthGBps, kLatencyUs));
    Plan plan = recursiveDoublingAllReduce(n);
    for (uint64_t m : kSizes)
      for (const SimOptions &options : kModes)
        expectExact(simulateTimeUs(plan, topo, m, options),
                    std::log2(double(n)) * (kLatencyUs + double(m) / kBytesPerUs),
                    label("recursive doubling", n, m, options));
  }
}

TEST(SimClosedForm, PairwiseAllToAllOnSwitch) {
  // Two hops (device → switch → device): α = 2 × the per-hop latency; the bottleneck is B.
  for (int n : kRankCounts) {
    Topology topo = switchTopology(n, linkParams(kBandwidthGBps, kLatencyUs));
    Plan plan = pairwiseAllToAll(n);
    for (uint64_t m : kSizes)
      for (const SimOptions &options : kModes)
        expectExact(simulateTimeUs(plan, topo, m, options),
                    (n - 1) * (2 * kLatencyUs + double(m) / (n * kBytesPerUs)),
                    label("pairwise all-to-all", n, m, options));
  }
}

TEST(SimClosedForm, RingAllReduceThroughDeviceMemory) {
  // All ranks on one device: transfers go through device memory at the intra-device figures.
  for (int n : {2, 4, 8}) {
    Topology topo = handBuilt({n}, 0, {});
    topo.intraDeviceBandwidthGBps = 80;
    topo.intraDeviceLatencyUs = 0.25;
    Plan plan = ringAllReduce(n);
    for (uint64_t m : kSizes)
      expectExact(simulateTimeUs(plan, topo, m, SimOptions{false, false}),
                  2.0 * (n - 1) * (0.25 + double(m) / (n * 80e3)),
                  label("intra-device ring allreduce", n, m, SimOptions{false, false}));
  }
}

}  // namespace
}  // namespace collplan
