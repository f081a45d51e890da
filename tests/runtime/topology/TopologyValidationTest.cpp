// Every kind of bad topology input is an error naming the file, the field and the reason.
#include "TopologyTestUtil.h"

namespace collplan::test {
namespace {

using nlohmann::json;

TEST(TopologyValidation, ExampleIsValid) {
  EXPECT_NO_THROW(topologyFromJson(validDocument(), "test.json"));
}

TEST(TopologyValidation, NotJson) {
  try {
    loadTopologyFile(dataFile("not-json.json"));
    FAIL() << "accepted a file that is not JSON";
  } catch (const TopologyError &error) {
    EXPECT_EQ(error.origin(), dataFile("not-json.json"));
    EXPECT_NE(std::string(error.what()).find("not valid JSON"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("not-json.json"), std::string::npos);
  }
}

// A number beyond double's range is no parse error to nlohmann::json but out_of_range; the
// loader reports it like any other bad JSON.
TEST(TopologyValidation, NumberOutOfRange) {
  try {
    loadTopologyFile(dataFile("number-overflow.json"));
    FAIL() << "accepted mem_bandwidth_gbps 1e400";
  } catch (const TopologyError &error) {
    EXPECT_EQ(error.origin(), dataFile("number-overflow.json"));
    EXPECT_NE(std::string(error.what()).find("not valid JSON"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("number overflow parsing '1e400'"), std::string::npos)
        << error.what();
  }
}

TEST(TopologyValidation, MissingFile) {
  try {
    loadTopologyFile(dataFile("no-such-file.json"));
    FAIL();
  } catch (const TopologyError &error) {
    EXPECT_NE(std::string(error.what()).find("no-such-file.json: cannot open"), std::string::npos)
        << error.what();
  }
}

TEST(TopologyValidation, DocumentNotAnObject) {
  EXPECT_TRUE(rejects(json::array({1, 2}), "(document)", "expected an object, got an array"));
}

TEST(TopologyValidation, WrongFormatVersion) {
  json document = validDocument();
  document["format_version"] = 2;
  EXPECT_TRUE(rejects(document, "format_version", "unsupported version 2"));
  document["format_version"] = "1";
  EXPECT_TRUE(rejects(document, "format_version", "expected an integer, got a string"));
}

TEST(TopologyValidation, MissingField) {
  json document = validDocument();
  document.erase("links");
  EXPECT_TRUE(rejects(document, "links", "missing required field"));
  document = validDocument();
  document["links"][1].erase("latency_us");
  EXPECT_TRUE(rejects(document, "links[1].latency_us", "missing required field"));
  document = validDocument();
  document["devices"][1].erase("mem_bandwidth_gbps");
  EXPECT_TRUE(rejects(document, "devices[1].mem_bandwidth_gbps", "missing required field"));
}

TEST(TopologyValidation, MistypedField) {
  json document = validDocument();
  document["devices"][0]["mem_bandwidth_gbps"] = "fast";
  EXPECT_TRUE(
      rejects(document, "devices[0].mem_bandwidth_gbps", "expected a number, got a string"));
  document = validDocument();
  document["devices"][1]["ranks"][0] = 2.5;
  EXPECT_TRUE(rejects(document, "devices[1].ranks[0]", "expected an integer, got a number"));
  document = validDocument();
  document["links"][0]["duplex"] = "yes";
  EXPECT_TRUE(rejects(document, "links[0].duplex", "expected a boolean, got a string"));
  document = validDocument();
  document["devices"] = json::object();
  EXPECT_TRUE(rejects(document, "devices", "expected an array, got an object"));
  document = validDocument();
  document["switches"][0] = "sw";
  EXPECT_TRUE(rejects(document, "switches[0]", "expected an object, got a string"));
}

TEST(TopologyValidation, UnknownField) {
  json document = validDocument();
  document["links"][0]["bandwith_gbps"] = 10;
  EXPECT_TRUE(rejects(document, "links[0].bandwith_gbps", "unknown field"));
}

TEST(TopologyValidation, RankOnTwoDevices) {
  json document = validDocument();
  document["devices"][1]["ranks"] = {1, 2, 3};
  document["ranks"] = 5;
  EXPECT_TRUE(rejects(document, "devices[1].ranks[0]", "rank 1 is already on device 'c0'"));
}

TEST(TopologyValidation, RanksNotContiguous) {
  json document = validDocument();
  document["devices"][1]["ranks"] = {2, 5};
  EXPECT_TRUE(
      rejects(document, "devices[1].ranks[1]", "rank 5 is out of range: ranks must be 0..3"));
  document["devices"][1]["ranks"] = {2, -1};
  EXPECT_TRUE(rejects(document, "devices[1].ranks[1]", "out of range"));
}

TEST(TopologyValidation, DeclaredRankCountDisagrees) {
  json document = validDocument();
  document["ranks"] = 5;
  EXPECT_TRUE(rejects(document, "ranks", "says 5 but the devices hold 4 ranks"));
}

TEST(TopologyValidation, NoRanksOrNoDevices) {
  json document = validDocument();
  document["devices"] = json::array();
  EXPECT_TRUE(rejects(document, "devices", "needs at least one device"));
}

TEST(TopologyValidation, LinkToUnknownVertex) {
  json document = validDocument();
  document["links"][1]["b"] = "c9";
  EXPECT_TRUE(rejects(document, "links[1].b", "unknown vertex 'c9'"));
}

TEST(TopologyValidation, LinkToItself) {
  json document = validDocument();
  document["links"][0]["b"] = "c0";
  EXPECT_TRUE(rejects(document, "links[0].b", "must join two different vertices"));
}

TEST(TopologyValidation, ZeroOrNegativeBandwidth) {
  json document = validDocument();
  document["links"][1]["bandwidth_gbps"] = 0;
  EXPECT_TRUE(rejects(document, "links[1].bandwidth_gbps", "must be a positive number"));
  document["links"][1]["bandwidth_gbps"] = -5;
  EXPECT_TRUE(rejects(document, "links[1].bandwidth_gbps", "must be a positive number"));
  document = validDocument();
  document["devices"][0]["mem_bandwidth_gbps"] = 0;
  EXPECT_TRUE(rejects(document, "devices[0].mem_bandwidth_gbps", "must be a positive number"));
  document = validDocument();
  document["intra_device"]["bandwidth_gbps"] = 0;
  EXPECT_TRUE(rejects(document, "intra_device.bandwidth_gbps", "must be a positive number"));
  // Positive but tiny: a large message's simulated time was infinite, without a word.
  document = validDocument();
  document["links"][1]["bandwidth_gbps"] = 1e-300;
  EXPECT_TRUE(rejects(document, "links[1].bandwidth_gbps", "must be at least 1e-6 (1 kB/s)"));
}

TEST(TopologyValidation, NegativeLatency) {
  json document = validDocument();
  document["links"][0]["latency_us"] = -1;
  EXPECT_TRUE(rejects(document, "links[0].latency_us", "must be a non-negative number"));
  // Finite but absurd: simulated times would overflow to infinity.
  document["links"][0]["latency_us"] = 1e300;
  EXPECT_TRUE(rejects(document, "links[0].latency_us", "must be at most 1e12, got 1e+300"));
  document["links"][0]["latency_us"] = 1.0;
  document["links"][0]["bandwidth_gbps"] = 1e13;
  EXPECT_TRUE(rejects(document, "links[0].bandwidth_gbps", "must be at most 1e12, got 1e+13"));
}

TEST(TopologyValidation, UnknownRouting) {
  json document = validDocument();
  document["routing"] = "ecmp";
  EXPECT_TRUE(
      rejects(document, "routing", "unknown routing 'ecmp' (expected one of: shortest_path"));
}

TEST(TopologyValidation, DimensionOrderNeedsDims) {
  json document = validDocument();
  document["routing"] = "dimension_order";
  EXPECT_TRUE(rejects(document, "routing", "needs `dims`"));
}

TEST(TopologyValidation, UnknownOrRepeatedFeature) {
  json document = validDocument();
  document["features"] = {"duplication", "teleport"};
  EXPECT_TRUE(rejects(document, "features[1]", "unknown feature 'teleport'"));
  document["features"] = {"duplication", "duplication"};
  EXPECT_TRUE(rejects(document, "features[1]", "listed twice"));
}

TEST(TopologyValidation, DuplicateVertexName) {
  json document = validDocument();
  document["switches"][0]["name"] = "c1";
  EXPECT_TRUE(rejects(document, "switches[0].name", "duplicate vertex name 'c1'"));
}

TEST(TopologyValidation, DisconnectedDevice) {
  json document = validDocument();
  document["links"].erase(1);
  EXPECT_TRUE(rejects(document, "links", "no path joins device 'c1'"));
}

TEST(TopologyValidation, CoordinatesMustFitDims) {
  json document = validDocument();
  document["devices"][0]["coords"] = {0};
  EXPECT_TRUE(rejects(document, "devices[0].coords", "the topology has no `dims`"));
  document["dims"] = {2};
  document["devices"][1]["coords"] = {2};
  EXPECT_TRUE(rejects(document, "devices[1].coords[0]", "2 is out of range 0..1"));
  document["devices"][1]["coords"] = {0};
  EXPECT_TRUE(rejects(document, "devices[1].coords", "same position as devices[0]"));
  document["dims"] = {3};
  document["devices"][1]["coords"] = {1};
  EXPECT_TRUE(rejects(document, "dims", "product of the extents is 3 but there are 2 devices"));
}

TEST(TopologyValidation, LinkDimensionMustExist) {
  json document = validDocument();
  document["links"][0]["dim"] = 0;
  EXPECT_TRUE(rejects(document, "links[0].dim", "is not -1 or a dimension"));
}

} // namespace
} // namespace collplan::test
