// Open MPI's coll/tuned component: its algorithms (numbered as in Open MPI 4.1), its message
// sizes, and its dynamic rules files (the 4.1 text format; the JSON of later releases).
#include "tuner/mpilib/MpiLibrary.h"

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>

namespace collplan::mpilib {
namespace {

using K = CollectiveKind;

/// coll/tuned's collective ids in a text rules file (COLLTYPE in coll_base_functions.h) and
/// their names in a JSON one.
struct CollectiveId {
  int id;
  const char *jsonName;
};

CollectiveId collectiveId(CollectiveKind kind) {
  switch (kind) {
  case K::AllGather: return {0, "allgather"};
  case K::AllReduce: return {2, "allreduce"};
  case K::AllToAll: return {3, "alltoall"};
  case K::Broadcast: return {7, "bcast"};
  case K::ReduceScatter: return {13, "reducescatterblock"};
  default: break;
  }
  throw std::invalid_argument("ompi-tuned: no rules for " + std::string(toString(kind)));
}

LibraryAlgorithm algorithm(K kind, int id, const char *name) {
  LibraryAlgorithm a;
  a.kind = kind;
  a.id = id;
  a.name = name;
  return a;
}

LibraryAlgorithm segmented(K kind, int id, const char *name) {
  LibraryAlgorithm a = algorithm(kind, id, name);
  a.segmented = true;
  return a;
}

/// The rule value 0 (Open MPI's "ignore"): coll/tuned passes the call to its fixed decision,
/// so a rules file can leave a size to the library. It is measured like an algorithm, through a
/// rules file that says 0 at every size, and wins where the library's own choice is fastest
/// (including parameters a rule cannot set, such as linear_sync's request count).
constexpr const char *kFixedDecision = "fixed_decision";

/// coll_tuned_<collective>_algorithm's values in Open MPI 4.1, each collective's list led by the
/// fixed decision.
const std::map<K, std::vector<LibraryAlgorithm>> &algorithmTable() {
  static const std::map<K, std::vector<LibraryAlgorithm>> table = [] {
    std::map<K, std::vector<LibraryAlgorithm>> t;
    t[K::AllReduce] = {algorithm(K::AllReduce, 1, "basic_linear"),
                       algorithm(K::AllReduce, 2, "nonoverlapping"),
                       algorithm(K::AllReduce, 3, "recursive_doubling"),
                       algorithm(K::AllReduce, 4, "ring"),
                       segmented(K::AllReduce, 5, "segmented_ring"),
                       algorithm(K::AllReduce, 6, "rabenseifner")};
    LibraryAlgorithm allgatherTwoProc = algorithm(K::AllGather, 6, "two_proc");
    allgatherTwoProc.onlyRanks = 2;
    LibraryAlgorithm neighbor = algorithm(K::AllGather, 5, "neighbor");
    neighbor.evenRanks = true;
    t[K::AllGather] = {algorithm(K::AllGather, 1, "linear"), algorithm(K::AllGather, 2, "bruck"),
                       algorithm(K::AllGather, 3, "recursive_doubling"),
                       algorithm(K::AllGather, 4, "ring"), neighbor, allgatherTwoProc};
    LibraryAlgorithm alltoallTwoProc = algorithm(K::AllToAll, 5, "two_proc");
    alltoallTwoProc.onlyRanks = 2;
    t[K::AllToAll] = {algorithm(K::AllToAll, 1, "linear"), algorithm(K::AllToAll, 2, "pairwise"),
                      algorithm(K::AllToAll, 3, "modified_bruck"),
                      algorithm(K::AllToAll, 4, "linear_sync"), alltoallTwoProc};
    t[K::Broadcast] = {algorithm(K::Broadcast, 1, "basic_linear"),
                       segmented(K::Broadcast, 2, "chain"),
                       segmented(K::Broadcast, 3, "pipeline"),
                       segmented(K::Broadcast, 4, "split_binary_tree"),
                       segmented(K::Broadcast, 5, "binary_tree"),
                       segmented(K::Broadcast, 6, "binomial"),
                       segmented(K::Broadcast, 7, "knomial"),
                       algorithm(K::Broadcast, 8, "scatter_allgather"),
                       algorithm(K::Broadcast, 9, "scatter_allgather_ring")};
    t[K::ReduceScatter] = {algorithm(K::ReduceScatter, 1, "basic_linear"),
                           algorithm(K::ReduceScatter, 2, "recursive_doubling"),
                           algorithm(K::ReduceScatter, 3, "recursive_halving"),
                           algorithm(K::ReduceScatter, 4, "butterfly")};
    for (auto &[kind, list] : t) list.insert(list.begin(), algorithm(kind, 0, kFixedDecision));
    return t;
  }();
  return table;
}

/// The 4.1 text format: numbers separated by white space, `#` starts a comment. Per
/// collective: its id, the number of communicator sizes, and per size the number of message
/// rules, each `from-bytes algorithm fan-in/out segment-bytes`; the first rule starts at 0.
void writeText(const RuleSet &rules, std::ostream &out) {
  out << "# Open MPI coll/tuned dynamic rules, written by collplan's plan-tune.\n"
      << "# Load with: OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
         "OMPI_MCA_coll_tuned_dynamic_rules_filename=THIS_FILE\n"
      << rules.size() << "  # collectives\n";
  for (const CollectiveRules &collective : rules) {
    out << collectiveId(collective.kind).id << "  # " << toString(collective.kind) << "\n"
        << collective.byRanks.size() << "  # communicator sizes\n";
    for (const RankRules &size : collective.byRanks) {
      out << size.ranks << "  # ranks (and more, up to the next size)\n"
          << size.rules.size() << "  # message sizes\n";
      for (const SizeRule &rule : size.rules)
        out << rule.fromBytes << " " << rule.choice.algorithm->id << " 0 "
            << rule.choice.segmentBytes << "  # from " << rule.fromBytes << " B: "
            << rule.choice.label() << "\n";
    }
  }
}

/// The JSON rules of Open MPI 6 (rule_file_version 3, tuned_dynamic_file_schema.json): per
/// collective a list of communicator-size ranges, each a list of message-size ranges.
void writeJson(const RuleSet &rules, std::ostream &out) {
  nlohmann::ordered_json collectives = nlohmann::ordered_json::object();
  for (const CollectiveRules &collective : rules) {
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    for (size_t s = 0; s < collective.byRanks.size(); ++s) {
      const RankRules &size = collective.byRanks[s];
      nlohmann::ordered_json entry;
      entry["comm_size_min"] = s == 0 ? 0 : size.ranks;
      if (s + 1 < collective.byRanks.size())
        entry["comm_size_max"] = collective.byRanks[s + 1].ranks - 1;
      else entry["comm_size_max"] = "inf";
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (size_t r = 0; r < size.rules.size(); ++r) {
        const SizeRule &rule = size.rules[r];
        nlohmann::ordered_json item;
        item["msg_size_min"] = rule.fromBytes;
        if (r + 1 < size.rules.size()) item["msg_size_max"] = size.rules[r + 1].fromBytes - 1;
        else item["msg_size_max"] = "inf";
        // Names as coll_tuned_<collective>_algorithm spells them; 0 (the fixed decision) as a
        // number, since Open MPI names it "ignore".
        if (rule.choice.algorithm->id == 0) item["alg"] = 0;
        else item["alg"] = rule.choice.algorithm->name;
        if (rule.choice.segmentBytes) item["seg_size"] = rule.choice.segmentBytes;
        list.push_back(item);
      }
      entry["rules"] = list;
      sizes.push_back(entry);
    }
    collectives[collectiveId(collective.kind).jsonName] = sizes;
  }
  nlohmann::ordered_json doc;
  doc["rule_file_version"] = 3;
  doc["module"] = "tuned";
  doc["collectives"] = collectives;
  out << doc.dump(2) << "\n";
}

class OpenMpiTuned final : public MpiLibrary {
public:
  std::string_view name() const override { return "ompi-tuned"; }
  std::string_view title() const override { return "Open MPI coll/tuned"; }
  std::vector<CollectiveKind> collectives() const override {
    return {K::AllReduce, K::AllGather, K::ReduceScatter, K::AllToAll, K::Broadcast};
  }
  const std::vector<LibraryAlgorithm> &algorithms(CollectiveKind kind) const override {
    static const std::vector<LibraryAlgorithm> none;
    const auto it = algorithmTable().find(kind);
    return it == algorithmTable().end() ? none : it->second;
  }
  std::vector<uint32_t> segmentSizes(bool quick) const override {
    if (quick) return {0};
    return {0, 8 << 10, 64 << 10};
  }
  /// coll/tuned's decision size: the whole buffer for allreduce and bcast, a rank's whole input
  /// for reduce_scatter_block, and all blocks (ranks × count) for allgather and alltoall.
  uint64_t ruleBytes(const measure::BenchCase &c, size_t count) const override {
    const uint64_t block = measure::blockBytes(c, count);
    switch (c.kind) {
    case K::AllGather:
    case K::AllToAll:
    case K::ReduceScatter: return block * uint64_t(c.ranks);
    default: return block;
    }
  }
  std::vector<RulesFormat> formats() const override {
    return {{"ompi-text", "Open MPI 4.x dynamic rules (text)"},
            {"ompi-json", "Open MPI 6 dynamic rules (JSON, rule_file_version 3)"}};
  }
  void writeRules(const RuleSet &rules, const std::string &format,
                  std::ostream &out) const override {
    if (format == "ompi-text") writeText(rules, out);
    else if (format == "ompi-json") writeJson(rules, out);
    else throw std::invalid_argument("--rules-format: ompi-tuned writes ompi-text or ompi-json, "
                                     "not '" + format + "'");
  }
  std::vector<std::string> rulesEnvironment(const std::string &path) const override {
    return {"OMPI_MCA_coll_tuned_use_dynamic_rules=1",
            "OMPI_MCA_coll_tuned_dynamic_rules_filename=" + path};
  }
  std::string defaultMpirun() const override { return "mpirun.openmpi"; }
  std::string helperName() const override { return "collplan-mpi-baseline"; }
};

}  // namespace

const MpiLibrary &openMpiTuned() {
  static const OpenMpiTuned library;
  return library;
}

}  // namespace collplan::mpilib
