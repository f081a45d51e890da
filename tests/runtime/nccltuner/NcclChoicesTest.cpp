// Unit tests of the collplan-nccl-tuner reader: what it accepts, first-fit lookup, and the
// message of every kind of bad file.
#include "runtime/nccltuner/NcclChoices.h"
#include "runtime/plan/PlanError.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace collplan::nccltuner {
namespace {

const std::string kExample =
    std::string(COLLPLAN_SOURCE_DIR) + "/tests/runtime/nccltuner/data/example.nccl-tuner.json";

/// A document with the given rules array text.
std::string withRules(const std::string &rules) {
  return R"({"format":"collplan-nccl-tuner","version":1,"rules":)" + rules + "}";
}

/// The message parseNcclChoices throws for `text`, or "" when it accepts it.
std::string errorOf(const std::string &text) {
  try {
    parseNcclChoices(text, "x.json");
  } catch (const PlanError &e) {
    return e.what();
  }
  return "";
}

TEST(NcclChoices, ReadsTheExampleWithDefaults) {
  const NcclChoices choices = readNcclChoices(kExample);
  ASSERT_EQ(choices.rules.size(), 6u);
  const NcclRule &first = choices.rules[0];
  EXPECT_EQ(first.collective, ncclFuncAllReduce);
  EXPECT_EQ(first.minBytes, 0u);
  EXPECT_EQ(first.maxBytes, 65536u);
  EXPECT_EQ(first.algorithm, NCCL_ALGO_TREE);
  EXPECT_EQ(first.protocol, NCCL_PROTO_LL);
  EXPECT_EQ(first.ranks, 0u);
  EXPECT_EQ(first.channels, 0);
  const NcclRule &second = choices.rules[1];
  EXPECT_EQ(second.ranks, 8u);
  EXPECT_EQ(second.nodes, 2u);
  EXPECT_EQ(second.protocol, NCCL_PROTO_LL128);
  EXPECT_EQ(second.channels, 16);
  EXPECT_EQ(choices.rules[2].maxBytes, UINT64_MAX);
  EXPECT_EQ(choices.rules[3].algorithm, NCCL_ALGO_PAT);
  EXPECT_EQ(choices.rules[5].collective, ncclFuncReduceScatter);
}

TEST(NcclChoices, FirstFitOverHalfOpenRanges) {
  const NcclChoices all = readNcclChoices(kExample);
  const NcclChoices mine = all.forCommunicator(8, 2);
  ASSERT_EQ(mine.rules.size(), 5u);  // the 4-rank allgather rule is gone
  EXPECT_EQ(mine.match(ncclFuncAllReduce, 0)->index, 0u);
  EXPECT_EQ(mine.match(ncclFuncAllReduce, 65535)->index, 0u);
  EXPECT_EQ(mine.match(ncclFuncAllReduce, 65536)->index, 1u);
  EXPECT_EQ(mine.match(ncclFuncAllReduce, 16777215)->index, 1u);
  EXPECT_EQ(mine.match(ncclFuncAllReduce, 16777216)->index, 2u);
  EXPECT_EQ(mine.match(ncclFuncAllGather, 1)->index, 4u);
  EXPECT_EQ(mine.match(ncclFuncBroadcast, 1024), nullptr);
  // One node of 4 ranks: the mid-size allreduce rule does not apply, the later one serves.
  const NcclChoices small = all.forCommunicator(4, 1);
  EXPECT_EQ(small.match(ncclFuncAllReduce, 1 << 20)->index, 2u);
  EXPECT_EQ(small.match(ncclFuncAllGather, 1)->index, 3u);
}

TEST(NcclChoices, EmptyRulesAreValid) {
  EXPECT_TRUE(parseNcclChoices(withRules("[]"), "x.json").rules.empty());
}

TEST(NcclChoices, DocumentErrorsNameTheFileAndField) {
  EXPECT_NE(errorOf("{\"format\":").find("x.json: not valid JSON"), std::string::npos);
  EXPECT_EQ(errorOf("[]"), "x.json: expected an object, got an array");
  EXPECT_EQ(errorOf(R"({"format":"collplan-defaults","version":1,"rules":[]})"),
            "x.json: format: expected \"collplan-nccl-tuner\", got \"collplan-defaults\"");
  EXPECT_EQ(errorOf(R"({"format":"collplan-nccl-tuner","version":2,"rules":[]})"),
            "x.json: version: unsupported version 2 (this plugin reads 1)");
  EXPECT_EQ(errorOf(R"({"format":"collplan-nccl-tuner","version":1})"),
            "x.json: rules: missing required field");
  EXPECT_EQ(errorOf(R"({"format":"collplan-nccl-tuner","version":1,"rules":[],"extra":1})"),
            "x.json: extra: unknown field (expected one of: format, version, rules, description)");
  EXPECT_EQ(errorOf(R"({"format":"collplan-nccl-tuner","version":1,"rules":{}})"),
            "x.json: rules: expected an array, got an object");
}

TEST(NcclChoices, RuleErrorsNameTheRuleAndField) {
  const std::string ok = R"({"collective":"allreduce","algorithm":"ring","protocol":"simple"})";
  auto rule = [&](const std::string &fields) {
    return withRules("[" + ok + R"(,{"collective":"allreduce",)" + fields + "}]");
  };
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"fast")")),
            "x.json: rules[1].protocol: \"fast\" is not one of ll, ll128, simple");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"mesh","protocol":"ll")")),
            "x.json: rules[1].algorithm: \"mesh\" is not one of tree, ring, collnet_direct, "
            "collnet_chain, nvls, nvls_tree, pat");
  EXPECT_EQ(errorOf(withRules(R"([{"collective":"alltoall","algorithm":"ring","protocol":"ll"}])")),
            "x.json: rules[0].collective: \"alltoall\" is not one of allreduce, allgather, "
            "reduce_scatter, broadcast, reduce");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","chanels":4)")),
            "x.json: rules[1].chanels: unknown field (expected one of: collective, algorithm, "
            "protocol, min_bytes, max_bytes, ranks, nodes, channels, chunk_bytes, why)");
  EXPECT_EQ(errorOf(rule(R"("protocol":"ll")")),
            "x.json: rules[1].algorithm: missing required field");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","min_bytes":100,"max_bytes":50)")),
            "x.json: rules[1].max_bytes: must be above min_bytes (100), got 50: the range "
            "[min_bytes, max_bytes) would be empty");
  EXPECT_NE(errorOf(rule(R"("algorithm":"ring","protocol":"ll","min_bytes":8,"max_bytes":8)"))
                .find("rules[1].max_bytes: must be above min_bytes (8), got 8"),
            std::string::npos);
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","min_bytes":-1)")),
            "x.json: rules[1].min_bytes: must be non-negative, got -1");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","channels":65)")),
            "x.json: rules[1].channels: must be between 0 and 64, got 65");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","chunk_bytes":0)")),
            "x.json: rules[1].chunk_bytes: must be between 1 and 1073741824, got 0");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","chunk_bytes":2147483648)")),
            "x.json: rules[1].chunk_bytes: must be between 1 and 1073741824, got 2147483648");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","ranks":0)")),
            "x.json: rules[1].ranks: must be between 1 and 16777216, got 0");
  EXPECT_EQ(errorOf(rule(R"("algorithm":"ring","protocol":"ll","nodes":1.5)")),
            "x.json: rules[1].nodes: expected an integer, got a floating-point number");
  EXPECT_EQ(errorOf(rule(R"("algorithm":7,"protocol":"ll")")),
            "x.json: rules[1].algorithm: expected a string, got an integer");
  EXPECT_EQ(errorOf(withRules("[3]")), "x.json: rules[0]: expected an object, got an integer");
}

TEST(NcclChoices, UnreadableFileNamesThePath) {
  const std::string path = std::string(COLLPLAN_BINARY_DIR) + "/no-such-dir/choices.json";
  try {
    readNcclChoices(path);
    FAIL() << "a missing file was accepted";
  } catch (const PlanError &e) {
    EXPECT_EQ(e.origin(), path);
    EXPECT_NE(std::string(e.what()).find(path + ": cannot"), std::string::npos) << e.what();
  }
}

TEST(NcclChoices, NamesRoundTrip) {
  EXPECT_EQ(collectiveName(ncclFuncReduceScatter), "reduce_scatter");
  EXPECT_EQ(algorithmName(NCCL_ALGO_NVLS_TREE), "nvls_tree");
  EXPECT_EQ(protocolName(NCCL_PROTO_LL128), "ll128");
  EXPECT_EQ(collectiveName(ncclFuncSend), "unknown");
}

/// The names listed by the error for `field`, e.g. "ll, ll128, simple".
std::string namesInError(const std::string &field, const std::string &fields) {
  const std::string message = errorOf(withRules("[{" + fields + "}]"));
  const std::string marker = field == "unknown" ? "expected one of: " : "is not one of ";
  const size_t at = message.find(marker);
  if (at == std::string::npos) return "(no list in: " + message + ")";
  std::string names = message.substr(at + marker.size());
  if (!names.empty() && names.back() == ')') names.pop_back();
  return names;
}

std::string joined(const nlohmann::json &names) {
  std::string out;
  for (const auto &name : names) out += (out.empty() ? "" : ", ") + name.get<std::string>();
  return out;
}

TEST(NcclChoices, SchemaMatchesTheReader) {
  const nlohmann::json schema = nlohmann::json::parse(
      std::ifstream(std::string(COLLPLAN_SOURCE_DIR) + "/plans/schema/nccl-tuner.schema.json"));
  const nlohmann::json &rule = schema["properties"]["rules"]["items"];
  const nlohmann::json &props = rule["properties"];
  EXPECT_EQ(joined(props["collective"]["enum"]),
            namesInError("collective", R"("collective":"x","algorithm":"ring","protocol":"ll")"));
  EXPECT_EQ(joined(props["algorithm"]["enum"]),
            namesInError("algorithm", R"("collective":"reduce","algorithm":"x","protocol":"ll")"));
  EXPECT_EQ(joined(props["protocol"]["enum"]),
            namesInError("protocol", R"("collective":"reduce","algorithm":"ring","protocol":"x")"));
  std::string fields;
  for (auto it = props.begin(); it != props.end(); ++it) fields += it.key() + ",";
  std::string reader = namesInError(
      "unknown", R"("collective":"reduce","algorithm":"ring","protocol":"ll","zz":1)");
  std::vector<std::string> readerFields;
  for (size_t at = 0; at < reader.size();) {
    const size_t comma = reader.find(", ", at);
    readerFields.push_back(reader.substr(at, comma - at));
    at = comma == std::string::npos ? reader.size() : comma + 2;
  }
  std::sort(readerFields.begin(), readerFields.end());
  std::string sorted;
  for (const std::string &f : readerFields) sorted += f + ",";
  EXPECT_EQ(fields, sorted);  // nlohmann's objects iterate in key order
  EXPECT_EQ(props["channels"]["maximum"], kMaxNcclChannels);
  EXPECT_EQ(schema["properties"]["format"]["const"], std::string(kChoicesFormat));
}

}  // namespace
}  // namespace collplan::nccltuner
