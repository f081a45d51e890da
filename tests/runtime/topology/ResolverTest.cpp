// resolveTopology: files, presets, generator specs, local, rank hints and errors.
#include "TopologyTestUtil.h"

#include "runtime/topology/Resolver.h"

namespace collplan::test {
namespace {

std::string errorOf(const std::string &spec, int ranksHint = 0) {
  try {
    resolveTopology(spec, ranksHint);
  } catch (const TopologyError &error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(TopologyResolver, Files) {
  EXPECT_EQ(resolveTopology(dataFile("two-chips.json"), 0).name, "two-chips");
  EXPECT_NE(errorOf(dataFile("missing.json")).find("cannot open"), std::string::npos);
  EXPECT_NE(errorOf("nowhere/topo").find("cannot open"), std::string::npos);
}

TEST(TopologyResolver, Presets) {
  EXPECT_EQ(resolveTopology("trn2", 0).numRanks(), 64);
  EXPECT_EQ(resolveTopology("nvswitch-h100", 0).numRanks(), 8);
  EXPECT_EQ(resolveTopology("pcie-7", 0).numRanks(), 7);
  EXPECT_EQ(resolveTopology("cluster:16", 0).numRanks(), 128);
  EXPECT_EQ(resolveTopology("cluster", 32).numRanks(), 32);
  // cluster-4 (the shipped bundle's name, plans/bundles/cluster-4) is cluster:4.
  EXPECT_EQ(resolveTopology("cluster-4", 0).fingerprint(),
            resolveTopology("cluster:4", 0).fingerprint());
  EXPECT_NE(errorOf("cluster-four").find("expected a number of nodes"), std::string::npos);
  // The hint never resizes a fixed preset; the caller compares numRanks().
  EXPECT_EQ(resolveTopology("trn2", 8).numRanks(), 64);
}

TEST(TopologyResolver, Generators) {
  EXPECT_EQ(resolveTopology("ring:8", 0).links.size(), 8u);
  EXPECT_EQ(resolveTopology("line:8", 0).links.size(), 7u);
  EXPECT_EQ(resolveTopology("switch:8", 0).switches.size(), 1u);
  EXPECT_EQ(resolveTopology("full:8", 0).links.size(), 28u);
  EXPECT_EQ(resolveTopology("hypercube:3", 0).numRanks(), 8);
  Topology torus = resolveTopology("torus:4x4x4", 0);
  EXPECT_EQ(torus.numRanks(), 64);
  EXPECT_EQ(torus.devices.size(), 16u);
  EXPECT_EQ(resolveTopology("torus:4x2", 0).numRanks(), 8);
  EXPECT_EQ(resolveTopology("pcie:7", 0).numRanks(), 7);
  EXPECT_EQ(resolveTopology("fattree:4x8x8", 0).numRanks(), 32);
}

TEST(TopologyResolver, RanksHintFillsMissingCounts) {
  EXPECT_EQ(resolveTopology("ring", 6).numRanks(), 6);
  EXPECT_EQ(resolveTopology("switch", 5).numRanks(), 5);
  EXPECT_EQ(resolveTopology("hypercube", 16).numRanks(), 16);
  EXPECT_EQ(resolveTopology("ring:4", 6).numRanks(), 4); // an explicit count wins
  EXPECT_NE(errorOf("ring").find("needs a number of devices"), std::string::npos);
  EXPECT_NE(errorOf("hypercube", 6).find("not a power of two"), std::string::npos);
  EXPECT_NE(errorOf("cluster", 12).find("12 ranks do not give one"), std::string::npos);
}

TEST(TopologyResolver, Local) {
  EXPECT_GE(resolveTopology("local", 0).numRanks(), 1);
  EXPECT_EQ(resolveTopology("local:3", 0).numRanks(), 3);
  EXPECT_EQ(resolveTopology("local", 5).numRanks(), 5);
}

TEST(TopologyResolver, UnknownNameListsWhatIsAccepted) {
  std::string message = errorOf("dragonfly:8");
  EXPECT_NE(message.find("topology spec 'dragonfly:8'"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown topology 'dragonfly'"), std::string::npos) << message;
  for (const char *accepted : {"trn2", "nvswitch-h100", "pcie-7", "cluster:<nodes>", "ring:<n>",
                               "torus:<x>x<y>", "fattree:", "local", "*.json"})
    EXPECT_NE(message.find(accepted), std::string::npos) << accepted << " missing in " << message;
  EXPECT_NE(errorOf("").find("accepted"), std::string::npos);
}

TEST(TopologyResolver, MalformedArguments) {
  EXPECT_NE(errorOf("ring:abc").find("expected a number of devices after ':', got 'abc'"),
            std::string::npos);
  EXPECT_NE(errorOf("ring:-3").find("got '-3'"), std::string::npos);
  EXPECT_NE(errorOf("ring:0").find("at least 1"), std::string::npos);
  EXPECT_NE(errorOf("trn2:4").find("takes no ':' argument"), std::string::npos);
  EXPECT_NE(errorOf("torus:4").find("expected torus:<x>x<y>"), std::string::npos);
  EXPECT_NE(errorOf("torus:4xx4").find("expected torus"), std::string::npos);
  EXPECT_NE(errorOf("fattree:4x8").find("expected fattree"), std::string::npos);
  EXPECT_NE(errorOf("cluster:100000").find("at most"), std::string::npos);
}

} // namespace
} // namespace collplan::test
