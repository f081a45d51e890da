// Helpers shared by the topology tests: the example file, error expectations, invariants.
#include "TopologyTestUtil.h"

#include <fstream>

namespace collplan::test {

std::string dataFile(const std::string &name) {
  return std::string(COLLPLAN_SOURCE_DIR) + "/tests/runtime/topology/data/" + name;
}

nlohmann::json validDocument() {
  std::ifstream file(dataFile("two-chips.json"));
  return nlohmann::json::parse(file);
}

::testing::AssertionResult rejects(const nlohmann::json &document, const std::string &field,
                                   const std::string &reason) {
  try {
    topologyFromJson(document, "test.json");
  } catch (const TopologyError &error) {
    std::string what = error.what();
    if (error.field() != field)
      return ::testing::AssertionFailure()
             << "field is '" << error.field() << "', expected '" << field << "': " << what;
    if (what.find("test.json") == std::string::npos || what.find(field) == std::string::npos ||
        what.find(reason) == std::string::npos)
      return ::testing::AssertionFailure() << "message '" << what << "' lacks the origin, '"
                                           << field << "' or '" << reason << "'";
    return ::testing::AssertionSuccess();
  } catch (const std::exception &error) {
    return ::testing::AssertionFailure() << "threw something else: " << error.what();
  }
  return ::testing::AssertionFailure() << "accepted the document";
}

void expectWellFormed(const Topology &topo) {
  int numRanks = topo.numRanks();
  ASSERT_GT(numRanks, 0);
  ASSERT_EQ(int(topo.rankToDevice.size()), numRanks);
  for (int rank = 0; rank < numRanks; ++rank) {
    int device = topo.deviceOf(rank);
    const std::vector<int> &ranks = topo.ranksOf(device);
    EXPECT_NE(std::find(ranks.begin(), ranks.end(), rank), ranks.end()) << "rank " << rank;
  }
  nlohmann::json document = topologyToJson(topo);
  Topology back = topologyFromJson(document, topo.name);
  EXPECT_EQ(topologyToJson(back), document);
  EXPECT_EQ(back.fingerprint(), topo.fingerprint());
  // Through text too, as a file would be written and read.
  Topology reparsed = topologyFromJson(nlohmann::json::parse(document.dump()), topo.name);
  EXPECT_EQ(reparsed.fingerprint(), topo.fingerprint());
}

} // namespace collplan::test
