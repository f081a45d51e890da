// Topology fingerprints: stable, independent of names, sensitive to everything plans depend on.
#include "TopologyTestUtil.h"

#include "runtime/topology/Generators.h"

namespace collplan::test {
namespace {

bool isHex16(const std::string &text) {
  return text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(TopologyFingerprint, IsSixteenHexDigitsAndDeterministic) {
  std::string first = torus2d(4, 4, 4).fingerprint();
  EXPECT_TRUE(isHex16(first)) << first;
  EXPECT_EQ(torus2d(4, 4, 4).fingerprint(), first);
}

TEST(TopologyFingerprint, PinnedValueDoesNotDrift) {
  // Plan bundles record fingerprints: changing the canonical serialisation orphans every shipped
  // bundle, so it must be a deliberate change (bump kTopologyFormatVersion and this value).
  EXPECT_EQ(ring(4).fingerprint(), ring(4).fingerprint());
  EXPECT_EQ(ring(4).fingerprint(), std::string("c1b4482191861d0b"));
}

TEST(TopologyFingerprint, StableAcrossJsonRoundTrip) {
  Topology topo = loadTopologyFile(dataFile("two-chips.json"));
  Topology back = topologyFromJson(nlohmann::json::parse(topologyToJson(topo).dump(2)), "text");
  EXPECT_EQ(back.fingerprint(), topo.fingerprint());
}

TEST(TopologyFingerprint, IgnoresNames) {
  Topology topo = ring(4), renamed = ring(4);
  renamed.name = "another name";
  renamed.devices[0].name = "chip-zero";
  renamed.devices[0].kind = "gpu";
  EXPECT_EQ(renamed.fingerprint(), topo.fingerprint());
}

TEST(TopologyFingerprint, ChangesWhenLinkBandwidthChanges) {
  Topology topo = loadTopologyFile(dataFile("two-chips.json"));
  nlohmann::json document = topologyToJson(topo);
  document["links"][1]["bandwidth_gbps"] = 51;
  EXPECT_NE(topologyFromJson(document, "changed").fingerprint(), topo.fingerprint());
}

TEST(TopologyFingerprint, ChangesWithEachPlanRelevantField) {
  const Topology base = ring(4);
  std::vector<std::pair<std::string, Topology>> variants;
  auto add = [&](const std::string &what, auto change) {
    Topology copy = base;
    change(copy);
    variants.push_back({what, copy});
  };
  add("latency", [](Topology &t) { t.links[0].latencyUs += 1; });
  add("duplex", [](Topology &t) { t.links[0].duplex = false; });
  add("memory", [](Topology &t) { t.devices[1].memBandwidthGBps *= 2; });
  add("reduce", [](Topology &t) { t.devices[1].reduceGBps = 10; });
  add("node", [](Topology &t) { t.devices[3].node = 1; });
  add("rank placement", [](Topology &t) { std::swap(t.devices[0].ranks, t.devices[1].ranks); });
  add("routing", [](Topology &t) { t.routing = Routing::DimensionOrder; });
  add("feature", [](Topology &t) { t.features.remoteReads = true; });
  add("intra-device", [](Topology &t) { t.intraDeviceLatencyUs += 1; });
  add("wrap", [](Topology &t) { t.wrap = false; });
  add("endpoints", [](Topology &t) { std::swap(t.links[0].a, t.links[0].b); });
  for (const auto &[what, topo] : variants)
    EXPECT_NE(topo.fingerprint(), base.fingerprint()) << what;
}

TEST(TopologyFingerprint, DiffersBetweenGenerators) {
  EXPECT_NE(ring(8).fingerprint(), line(8).fingerprint());
  EXPECT_NE(ring(8).fingerprint(), switchTopology(8).fingerprint());
  EXPECT_NE(torus2d(4, 4, 4).fingerprint(), torus2d(4, 4, 2).fingerprint());
}

} // namespace
} // namespace collplan::test
