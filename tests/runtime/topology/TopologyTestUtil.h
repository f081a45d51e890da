// Helpers shared by the topology tests: the example file, error expectations, invariants.
#pragma once

#include "runtime/topology/Topology.h"
#include "runtime/topology/TopologyError.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace collplan::test {

/// Path of a file under tests/runtime/topology/data.
std::string dataFile(const std::string &name);
/// The parsed contents of data/two-chips.json: a valid topology to mutate.
nlohmann::json validDocument();

/// Parses `document` and checks it fails with a TopologyError whose field is `field` and whose
/// message names the origin, the field and contains `reason`.
::testing::AssertionResult rejects(const nlohmann::json &document, const std::string &field,
                                   const std::string &reason);

/// Structural invariants every topology must satisfy: ranks 0..N-1 on devices, deviceOf and
/// ranksOf agree, JSON round trip keeps the document and the fingerprint.
void expectWellFormed(const Topology &topo);

} // namespace collplan::test
