// localMachine(): hwloc discovery gives a sane topology on whatever machine runs the tests.
#include "TopologyTestUtil.h"

#include "runtime/topology/Generators.h"
#include "runtime/topology/Queries.h"

namespace collplan::test {
namespace {

TEST(TopologyLocalMachine, OneRankPerCore) {
  Topology topo = localMachine();
  expectWellFormed(topo);
  EXPECT_GE(topo.numRanks(), 1);
  EXPECT_GE(topo.devices.size(), 1u);
  for (const Device &device : topo.devices)
    EXPECT_GT(device.memBandwidthGBps, 0);
  EXPECT_GT(topo.intraDeviceBandwidthGBps, 0);
  EXPECT_EQ(int(topo.links.size()), int(topo.devices.size() * (topo.devices.size() - 1) / 2));
  for (int a = 0; a < topo.numRanks(); ++a)
    EXPECT_LE(hopCount(topo, 0, a), 1);
}

TEST(TopologyLocalMachine, GivenRankCount) {
  LocalMachineParams params;
  params.ranks = 7;
  Topology topo = localMachine(params);
  expectWellFormed(topo);
  EXPECT_EQ(topo.numRanks(), 7);
  params.ranks = -1;
  EXPECT_THROW(localMachine(params), TopologyError);
}

} // namespace
} // namespace collplan::test
