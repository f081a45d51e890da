// Loading topology files and the JSON round trip; the schema agrees with the loader.
#include "TopologyTestUtil.h"

#include "runtime/topology/TopologyNames.h"

#include <fstream>
#include <set>

namespace collplan::test {
namespace {

using nlohmann::json;

TEST(TopologyJson, LoadsExampleFile) {
  Topology topo = loadTopologyFile(dataFile("two-chips.json"));
  EXPECT_EQ(topo.name, "two-chips");
  EXPECT_EQ(topo.numRanks(), 4);
  ASSERT_EQ(topo.devices.size(), 2u);
  ASSERT_EQ(topo.switches.size(), 1u);
  EXPECT_EQ(topo.switches[0].kind, "pcie");
  ASSERT_EQ(topo.links.size(), 2u);
  EXPECT_EQ(topo.links[0].a, 0);
  EXPECT_EQ(topo.links[0].b, 2); // switches follow devices
  EXPECT_DOUBLE_EQ(topo.links[1].bandwidthGBps, 50);
  EXPECT_FALSE(topo.links[1].duplex);
  EXPECT_TRUE(topo.links[0].duplex); // documented default
  EXPECT_EQ(topo.links[0].dim, -1);
  EXPECT_EQ(topo.routing, Routing::ShortestPath);
  EXPECT_TRUE(topo.features.duplication);
  EXPECT_FALSE(topo.features.remoteReads);
  EXPECT_DOUBLE_EQ(topo.intraDeviceBandwidthGBps, 500);
  EXPECT_EQ(topo.deviceOf(3), 1);
  EXPECT_EQ(topo.ranksOf(0), (std::vector<int>{0, 1}));
  std::vector<Hop> hops = topo.route(1, 2);
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(hops[0], (Hop{0, false}));
  EXPECT_EQ(hops[1], (Hop{1, false}));
  EXPECT_EQ(topo.route(2, 0)[0], (Hop{1, true}));
  EXPECT_TRUE(topo.route(0, 1).empty());
}

TEST(TopologyJson, RoundTripKeepsEverything) {
  Topology topo = loadTopologyFile(dataFile("two-chips.json"));
  json written = topologyToJson(topo);
  EXPECT_EQ(written["format_version"], kTopologyFormatVersion);
  EXPECT_EQ(written["links"][1]["b"], "c1");
  EXPECT_EQ(written["features"], json::array({"duplication"}));
  Topology back = topologyFromJson(written, "round trip");
  EXPECT_EQ(topologyToJson(back), written);
  expectWellFormed(topo);
}

TEST(TopologyJson, TypedAccessorsRejectWrongQueries) {
  Topology topo = loadTopologyFile(dataFile("two-chips.json"));
  EXPECT_THROW(topo.deviceOf(4), TopologyError);
  EXPECT_THROW(topo.deviceOf(-1), TopologyError);
  EXPECT_THROW(topo.neighbours(0, 0), TopologyError); // no dims
}

TEST(TopologyJson, NamesOfRoutingAndFeatures) {
  EXPECT_EQ(parseRouting("dimension_order"), Routing::DimensionOrder);
  EXPECT_EQ(parseRouting("shortest_path"), Routing::ShortestPath);
  EXPECT_FALSE(parseRouting("ecmp"));
  Features features;
  ASSERT_NE(featureFlag(features, "remote_reads"), nullptr);
  EXPECT_EQ(featureFlag(features, "teleport"), nullptr);
}

/// The schema in plans/schema must accept exactly what the loader accepts: every field it calls
/// required is required by the loader, every other property it lists may be left out, and its
/// enums are the loader's names.
class TopologySchema : public ::testing::Test {
protected:
  void SetUp() override {
    std::ifstream file(std::string(COLLPLAN_SOURCE_DIR) + "/plans/schema/topology.schema.json");
    ASSERT_TRUE(file) << "schema missing";
    schema = json::parse(file);
  }

  /// Removes each property of `objectSchema` from the object at `pointer` in turn.
  void checkObject(const json &objectSchema, const std::string &pointer, const std::string &path) {
    std::set<std::string> required;
    for (const json &key : objectSchema.at("required"))
      required.insert(key.get<std::string>());
    EXPECT_FALSE(objectSchema.at("additionalProperties").get<bool>()) << path;
    for (auto &[key, ignored] : objectSchema.at("properties").items()) {
      json document = validDocument();
      json &object = document[json::json_pointer(pointer)];
      object.erase(key);
      std::string field = path.empty() ? key : path + "." + key;
      if (required.count(key))
        EXPECT_TRUE(rejects(document, field, "missing required field")) << field;
      else
        expectNotRequired(document, field);
    }
    json document = validDocument();
    document[json::json_pointer(pointer)]["not_a_field"] = 1;
    EXPECT_TRUE(
        rejects(document, path.empty() ? "not_a_field" : path + ".not_a_field", "unknown field"));
  }

  /// Leaving an optional field out must not be reported as missing (it may break something else:
  /// without `switches`, links name unknown vertices).
  static void expectNotRequired(const json &document, const std::string &field) {
    try {
      topologyFromJson(document, "test.json");
    } catch (const TopologyError &error) {
      EXPECT_NE(error.field(), field) << error.what();
      EXPECT_EQ(error.reason().find("missing required field"), std::string::npos) << error.what();
    }
  }

  json schema;
};

TEST_F(TopologySchema, RequiredAndOptionalFieldsMatchLoader) {
  checkObject(schema, "", "");
  checkObject(schema["$defs"]["device"], "/devices/0", "devices[0]");
  checkObject(schema["$defs"]["switch"], "/switches/0", "switches[0]");
  checkObject(schema["$defs"]["link"], "/links/0", "links[0]");
  checkObject(schema["properties"]["intra_device"], "/intra_device", "intra_device");
}

TEST_F(TopologySchema, EnumsMatchLoaderNames) {
  std::vector<std::string> routings, features;
  for (const json &name : schema["properties"]["routing"]["enum"]) {
    routings.push_back(name.get<std::string>());
    EXPECT_TRUE(parseRouting(routings.back())) << routings.back();
  }
  EXPECT_EQ(routings.size(), 2u);
  for (const json &name : schema["properties"]["features"]["items"]["enum"])
    features.push_back(name.get<std::string>());
  EXPECT_EQ(features, std::vector<std::string>(std::begin(kFeatureNames), std::end(kFeatureNames)));
  EXPECT_EQ(schema["properties"]["format_version"]["const"], kTopologyFormatVersion);
}

} // namespace
} // namespace collplan::test
