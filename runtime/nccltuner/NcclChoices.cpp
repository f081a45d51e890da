// Reading and checking a collplan-nccl-tuner choices file, and the first-fit lookup over it.
#include "runtime/nccltuner/NcclChoices.h"

#include "runtime/core/Files.h"
#include "runtime/core/JsonDocument.h"
#include "runtime/plan/JsonFields.h"

#include <array>
#include <utility>

namespace collplan::nccltuner {
namespace {

using namespace json_access;

/// A name in the file and the ABI value it stands for.
template <typename T>
struct Named {
  std::string_view name;
  T value;
};

/// The collectives NCCL asks a tuner about (NCCL_NUM_FUNCTIONS: send/recv are not tuned),
/// spelt as everywhere else in collplan.
constexpr std::array<Named<ncclFunc_t>, 5> kCollectives = {{
    {"allreduce", ncclFuncAllReduce},
    {"allgather", ncclFuncAllGather},
    {"reduce_scatter", ncclFuncReduceScatter},
    {"broadcast", ncclFuncBroadcast},
    {"reduce", ncclFuncReduce},
}};
constexpr std::array<Named<int>, 7> kAlgorithms = {{
    {"tree", NCCL_ALGO_TREE},
    {"ring", NCCL_ALGO_RING},
    {"collnet_direct", NCCL_ALGO_COLLNET_DIRECT},
    {"collnet_chain", NCCL_ALGO_COLLNET_CHAIN},
    {"nvls", NCCL_ALGO_NVLS},
    {"nvls_tree", NCCL_ALGO_NVLS_TREE},
    {"pat", NCCL_ALGO_PAT},
}};
constexpr std::array<Named<int>, 3> kProtocols = {{
    {"ll", NCCL_PROTO_LL},
    {"ll128", NCCL_PROTO_LL128},
    {"simple", NCCL_PROTO_SIMPLE},
}};

constexpr std::array<std::string_view, 3> kTopRequired = {"format", "version", "rules"};
constexpr std::array<std::string_view, 1> kTopOptional = {"description"};
constexpr std::array<std::string_view, 2> kRuleRequired = {"collective", "algorithm"};
constexpr std::array<std::string_view, 8> kRuleOptional = {
    "protocol", "min_bytes", "max_bytes", "ranks", "nodes", "channels", "chunk_bytes", "why"};

/// The value named by the string at `where`, or an error listing the names it may be.
template <typename T, size_t N>
T expectName(const json &value, const Where &where, const std::array<Named<T>, N> &table) {
  const std::string text = expectString(value, where);
  std::string names;
  for (const Named<T> &entry : table) {
    if (entry.name == text) return entry.value;
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  }
  where.fail("\"" + text + "\" is not one of " + names);
}

template <typename T, size_t N>
std::string_view nameOf(T value, const std::array<Named<T>, N> &table) {
  for (const Named<T> &entry : table)
    if (entry.value == value) return entry.name;
  return "unknown";
}

/// The optional size bounds of a rule; an empty range could never match, so it is an error.
void parseSizeRange(const json &value, const std::string &origin, const FieldPath &path,
                    NcclRule &rule) {
  if (const json *v = member(value, "min_bytes"))
    rule.minBytes = expectUnsigned64(*v, Where{origin, path / "min_bytes"});
  if (const json *v = member(value, "max_bytes")) {
    rule.maxBytes = expectUnsigned64(*v, Where{origin, path / "max_bytes"});
    if (rule.maxBytes <= rule.minBytes)
      throwPlanError(origin, path / "max_bytes",
                     "must be above min_bytes (" + std::to_string(rule.minBytes) + "), got " +
                         std::to_string(rule.maxBytes) + ": the range [min_bytes, max_bytes) "
                         "would be empty");
  }
}

NcclRule parseRule(const json &value, const std::string &origin, const FieldPath &path,
                   size_t index) {
  checkObject(value, Where{origin, path}, kRuleRequired, kRuleOptional);
  NcclRule rule;
  rule.index = index;
  rule.collective = expectName(value["collective"], Where{origin, path / "collective"},
                               kCollectives);
  rule.algorithm = expectName(value["algorithm"], Where{origin, path / "algorithm"}, kAlgorithms);
  if (const json *v = member(value, "protocol"))
    rule.protocol = expectName(*v, Where{origin, path / "protocol"}, kProtocols);
  parseSizeRange(value, origin, path, rule);
  if (const json *v = member(value, "ranks"))
    rule.ranks = size_t(expectInteger(*v, Where{origin, path / "ranks"}, 1, 1 << 24));
  if (const json *v = member(value, "nodes"))
    rule.nodes = size_t(expectInteger(*v, Where{origin, path / "nodes"}, 1, 1 << 24));
  if (const json *v = member(value, "channels"))
    rule.channels = int(expectInteger(*v, Where{origin, path / "channels"}, 0, kMaxNcclChannels));
  if (const json *v = member(value, "chunk_bytes"))
    rule.chunkBytes = uint64_t(expectInteger(*v, Where{origin, path / "chunk_bytes"}, 1,
                                             int64_t(kMaxNcclChunkBytes)));
  if (const json *v = member(value, "why")) expectString(*v, Where{origin, path / "why"});
  return rule;
}

void checkHeader(const json &doc, const std::string &origin, const FieldPath &root) {
  checkObject(doc, Where{origin, root}, kTopRequired, kTopOptional);
  const std::string format = expectString(doc["format"], Where{origin, root / "format"});
  if (format != kChoicesFormat)
    throwPlanError(origin, root / "format",
                   "expected \"" + std::string(kChoicesFormat) + "\", got \"" + format + "\"");
  const int64_t version =
      expectInteger(doc["version"], Where{origin, root / "version"}, 0, 1 << 20);
  if (version != kChoicesVersion)
    throwPlanError(origin, root / "version",
                   "unsupported version " + std::to_string(version) + " (this plugin reads " +
                       std::to_string(kChoicesVersion) + ")");
  if (const json *d = member(doc, "description"))
    expectString(*d, Where{origin, root / "description"});
}

}  // namespace

NcclChoices parseNcclChoices(std::string_view text, const std::string &origin) {
  const json doc = parseJsonText(text, origin);
  const FieldPath root;
  checkHeader(doc, origin, root);
  const FieldPath rulesPath = root / "rules";
  const json &rules = expectArray(doc["rules"], Where{origin, rulesPath});
  NcclChoices out;
  out.rules.reserve(rules.size());
  for (size_t i = 0; i < rules.size(); ++i)
    out.rules.push_back(parseRule(rules[i], origin, rulesPath[i], i));
  return out;
}

NcclChoices readNcclChoices(const std::string &path) {
  std::string bytes;
  try {
    bytes = readWholeFile(path);
  } catch (const FileError &e) {
    throwPlanError(path, FieldPath(), e.reason());
  }
  return parseNcclChoices(bytes, path);
}

NcclChoices NcclChoices::forCommunicator(size_t ranks, size_t nodes) const {
  NcclChoices out;
  for (const NcclRule &rule : rules)
    if (rule.appliesTo(ranks, nodes)) out.rules.push_back(rule);
  return out;
}

const NcclRule *NcclChoices::match(ncclFunc_t func, uint64_t nBytes) const {
  for (const NcclRule &rule : rules)
    if (rule.matches(func, nBytes)) return &rule;
  return nullptr;
}

std::string_view collectiveName(ncclFunc_t func) { return nameOf(func, kCollectives); }
std::string_view algorithmName(int algorithm) { return nameOf(algorithm, kAlgorithms); }
std::string_view protocolName(int protocol) {
  return protocol == kCheapestProtocol ? "cheapest" : nameOf(protocol, kProtocols);
}

}  // namespace collplan::nccltuner
