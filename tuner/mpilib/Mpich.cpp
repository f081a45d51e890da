// MPICH 4's collective selection (CSEL): its MPIR-level algorithms, its message sizes, and the
// JSON selection file it reads (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE).
#include "tuner/mpilib/MpiLibrary.h"

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>

namespace collplan::mpilib {
namespace {

using K = CollectiveKind;
using Json = nlohmann::ordered_json;

/// A tuned collective in MPICH's terms.
struct MpichCollective {
  const char *csel;          ///< "allreduce": the file's "collective=allreduce"
  const char *sizeKey;       ///< the size its rules compare: "avg_msg_size" or "total_msg_size"
  std::string unrestricted;  ///< what calls an algorithm's restriction excludes run
  std::string inter;         ///< the intercommunicator algorithm
  /// Conditions checked before any size rule, each with the algorithm such calls must run
  /// ("is_op_built_in=no" -> recursive doubling).
  std::vector<std::pair<std::string, std::string>> guards;
  std::vector<LibraryAlgorithm> algorithms;
};

LibraryAlgorithm algorithm(K kind, const std::string &name) {
  LibraryAlgorithm a;
  a.kind = kind;
  a.name = name;
  return a;
}

/// MPICH 4.0's intra-communicator algorithms of the five tuned collectives, less the ones a
/// rules file cannot place on their own (smp needs a node hierarchy; the non-commutative
/// reduce_scatter_block serves non-commutative ops, which a guard sends to recursive doubling).
const std::map<K, MpichCollective> &collectiveTable() {
  static const std::map<K, MpichCollective> table = [] {
    std::map<K, MpichCollective> t;
    LibraryAlgorithm rsag = algorithm(K::AllReduce, "MPIR_Allreduce_intra_reduce_scatter_allgather");
    rsag.countAtLeastPowerOfTwo = true;
    t[K::AllReduce] = {"allreduce", "avg_msg_size", "MPIR_Allreduce_intra_recursive_doubling",
                       "MPIR_Allreduce_inter_reduce_exchange_bcast",
                       {{"is_op_built_in=no", "MPIR_Allreduce_intra_recursive_doubling"}},
                       {algorithm(K::AllReduce, "MPIR_Allreduce_intra_recursive_doubling"), rsag}};
    LibraryAlgorithm allgatherRd = algorithm(K::AllGather, "MPIR_Allgather_intra_recursive_doubling");
    allgatherRd.powerOfTwoRanks = true;
    t[K::AllGather] = {"allgather", "total_msg_size", "MPIR_Allgather_intra_ring",
                       "MPIR_Allgather_inter_local_gather_remote_bcast", {},
                       {algorithm(K::AllGather, "MPIR_Allgather_intra_brucks"), allgatherRd,
                        algorithm(K::AllGather, "MPIR_Allgather_intra_ring")}};
    t[K::AllToAll] = {"alltoall", "avg_msg_size", "MPIR_Alltoall_intra_pairwise",
                      "MPIR_Alltoall_inter_pairwise_exchange",
                      {{"is_sendbuf_inplace=yes", "MPIR_Alltoall_intra_pairwise_sendrecv_replace"}},
                      {algorithm(K::AllToAll, "MPIR_Alltoall_intra_brucks"),
                       algorithm(K::AllToAll, "MPIR_Alltoall_intra_pairwise"),
                       algorithm(K::AllToAll, "MPIR_Alltoall_intra_scattered")}};
    t[K::Broadcast] = {"bcast", "avg_msg_size", "MPIR_Bcast_intra_binomial",
                       "MPIR_Bcast_inter_remote_send_local_bcast", {},
                       {algorithm(K::Broadcast, "MPIR_Bcast_intra_binomial"),
                        algorithm(K::Broadcast, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"),
                        algorithm(K::Broadcast, "MPIR_Bcast_intra_scatter_ring_allgather")}};
    t[K::ReduceScatter] = {
        "reduce_scatter_block", "total_msg_size", "MPIR_Reduce_scatter_block_intra_recursive_doubling",
        "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter",
        {{"is_commutative=no", "MPIR_Reduce_scatter_block_intra_recursive_doubling"}},
        {algorithm(K::ReduceScatter, "MPIR_Reduce_scatter_block_intra_recursive_doubling"),
         algorithm(K::ReduceScatter, "MPIR_Reduce_scatter_block_intra_pairwise"),
         algorithm(K::ReduceScatter, "MPIR_Reduce_scatter_block_intra_recursive_halving")}};
    return t;
  }();
  return table;
}

/// Every other collective MPICH selects through the file (it aborts on one the file lacks):
/// one algorithm each, the one its own default file uses for general messages. An empty inter
/// algorithm: the intra one serves every communicator ("allcomm"), or there is no inter form.
struct FixedCollective {
  const char *csel;
  const char *intra;
  const char *inter;
  const char *inPlace = nullptr;  ///< the algorithm MPI_IN_PLACE calls need, if any
};

const std::vector<FixedCollective> &fixedCollectives() {
  static const std::vector<FixedCollective> table = {
      {"allgatherv", "MPIR_Allgatherv_intra_ring", "MPIR_Allgatherv_inter_remote_gather_local_bcast"},
      {"reduce", "MPIR_Reduce_intra_binomial", "MPIR_Reduce_inter_local_reduce_remote_send"},
      {"reduce_scatter", "MPIR_Reduce_scatter_intra_recursive_doubling",
       "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"},
      {"gather", "MPIR_Gather_intra_binomial", "MPIR_Gather_inter_local_gather_remote_send"},
      {"scatter", "MPIR_Scatter_intra_binomial", "MPIR_Scatter_inter_remote_send_local_scatter"},
      {"gatherv", "MPIR_Gatherv_allcomm_linear", ""},
      {"scatterv", "MPIR_Scatterv_allcomm_linear", ""},
      {"scan", "MPIR_Scan_intra_recursive_doubling", ""},
      {"exscan", "MPIR_Exscan_intra_recursive_doubling", ""},
      {"barrier", "MPIR_Barrier_intra_dissemination", "MPIR_Barrier_inter_bcast"},
      {"alltoallv", "MPIR_Alltoallv_intra_scattered", "MPIR_Alltoallv_inter_pairwise_exchange",
       "MPIR_Alltoallv_intra_pairwise_sendrecv_replace"},
      {"alltoallw", "MPIR_Alltoallw_intra_scattered", "MPIR_Alltoallw_inter_pairwise_exchange",
       "MPIR_Alltoallw_intra_pairwise_sendrecv_replace"},
      {"neighbor_allgather", "MPIR_Neighbor_allgather_allcomm_nb", ""},
      {"neighbor_allgatherv", "MPIR_Neighbor_allgatherv_allcomm_nb", ""},
      {"neighbor_alltoall", "MPIR_Neighbor_alltoall_allcomm_nb", ""},
      {"neighbor_alltoallv", "MPIR_Neighbor_alltoallv_allcomm_nb", ""},
      {"neighbor_alltoallw", "MPIR_Neighbor_alltoallw_allcomm_nb", ""},
      {"ibarrier", "MPIR_Ibarrier_intra_sched_recursive_doubling", "MPIR_Ibarrier_inter_sched_bcast"},
      {"iallreduce", "MPIR_Iallreduce_intra_sched_recursive_doubling",
       "MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast"},
      {"iallgather", "MPIR_Iallgather_intra_sched_ring",
       "MPIR_Iallgather_inter_sched_local_gather_remote_bcast"},
      {"iallgatherv", "MPIR_Iallgatherv_intra_sched_ring",
       "MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast"},
      {"ibcast", "MPIR_Ibcast_intra_sched_binomial", "MPIR_Ibcast_inter_sched_flat"},
      {"ireduce", "MPIR_Ireduce_intra_sched_binomial", "MPIR_Ireduce_inter_sched_local_reduce_remote_send"},
      {"ireduce_scatter", "MPIR_Ireduce_scatter_intra_sched_recursive_doubling",
       "MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"},
      {"igather", "MPIR_Igather_intra_sched_binomial", "MPIR_Igather_inter_sched_long"},
      {"iscatter", "MPIR_Iscatter_intra_sched_binomial", "MPIR_Iscatter_inter_sched_linear"},
      {"igatherv", "MPIR_Igatherv_allcomm_sched_linear", ""},
      {"iscatterv", "MPIR_Iscatterv_allcomm_sched_linear", ""},
      {"iexscan", "MPIR_Iexscan_intra_sched_recursive_doubling", ""},
      {"ialltoall", "MPIR_Ialltoall_intra_sched_pairwise", "MPIR_Ialltoall_inter_sched_pairwise_exchange",
       "MPIR_Ialltoall_intra_sched_inplace"},
      {"ialltoallv", "MPIR_Ialltoallv_intra_sched_blocked",
       "MPIR_Ialltoallv_inter_sched_pairwise_exchange", "MPIR_Ialltoallv_intra_sched_inplace"},
      {"ialltoallw", "MPIR_Ialltoallw_intra_sched_blocked",
       "MPIR_Ialltoallw_inter_sched_pairwise_exchange", "MPIR_Ialltoallw_intra_sched_inplace"},
      {"ireduce_scatter_block", "MPIR_Ireduce_scatter_block_intra_sched_recursive_doubling",
       "MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"},
      {"iscan", "MPIR_Iscan_intra_sched_recursive_doubling", ""},
      {"ineighbor_allgather", "MPIR_Ineighbor_allgather_allcomm_sched_linear", ""},
      {"ineighbor_allgatherv", "MPIR_Ineighbor_allgatherv_allcomm_sched_linear", ""},
      {"ineighbor_alltoall", "MPIR_Ineighbor_alltoall_allcomm_sched_linear", ""},
      {"ineighbor_alltoallv", "MPIR_Ineighbor_alltoallv_allcomm_sched_linear", ""},
      {"ineighbor_alltoallw", "MPIR_Ineighbor_alltoallw_allcomm_sched_linear", ""},
  };
  return table;
}

const MpichCollective &tunedCollective(CollectiveKind kind) {
  const auto it = collectiveTable().find(kind);
  if (it == collectiveTable().end())
    throw std::invalid_argument("mpich: no rules for " + std::string(toString(kind)));
  return it->second;
}

Json leaf(const std::string &algorithm) {
  Json node = Json::object();
  node["algorithm=" + algorithm] = Json::object();
  return node;
}

int largestPowerOfTwoAtMost(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/// The node that runs `choice`, sending the calls its restrictions exclude to the
/// collective's unrestricted algorithm.
Json choiceNode(const MpichCollective &collective, const LibraryChoice &choice, int ranks) {
  const LibraryAlgorithm &a = *choice.algorithm;
  if (a.powerOfTwoRanks) {
    Json node = Json::object();
    node["comm_size=pow2"] = leaf(a.name);
    node["comm_size=any"] = leaf(collective.unrestricted);
    return node;
  }
  if (a.countAtLeastPowerOfTwo) {
    Json node = Json::object();
    const int below = largestPowerOfTwoAtMost(ranks) - 1;
    if (below > 0) node["count<=" + std::to_string(below)] = leaf(collective.unrestricted);
    node["count=any"] = leaf(a.name);
    return node;
  }
  return leaf(a.name);
}

/// One communicator size's rules: the guards, then one size range per rule (each up to the
/// next rule's start, inclusive), the last open.
Json sizeRules(const MpichCollective &collective, const RankRules &size) {
  Json node = Json::object();
  for (const auto &[condition, algorithm] : collective.guards) node[condition] = leaf(algorithm);
  for (size_t r = 0; r < size.rules.size(); ++r) {
    const std::string key =
        r + 1 < size.rules.size()
            ? std::string(collective.sizeKey) + "<=" + std::to_string(size.rules[r + 1].fromBytes - 1)
            : std::string(collective.sizeKey) + "=any";
    node[key] = choiceNode(collective, size.rules[r].choice, size.ranks);
  }
  return node;
}

Json tunedEntry(const CollectiveRules &rules) {
  const MpichCollective &collective = tunedCollective(rules.kind);
  Json intra = Json::object();
  for (size_t s = 0; s < rules.byRanks.size(); ++s) {
    const RankRules &size = rules.byRanks[s];
    const std::string key = s + 1 < rules.byRanks.size()
                                ? "comm_size<=" + std::to_string(size.ranks)
                                : std::string("comm_size=any");
    intra[key] = sizeRules(collective, size);
  }
  Json entry = Json::object();
  entry["comm_type=intra"] = intra;
  entry["comm_type=inter"] = leaf(collective.inter);
  return entry;
}

/// A collective the rules leave alone runs its unrestricted algorithm (and its guards).
Json untunedEntry(const MpichCollective &collective) {
  Json intra = Json::object();
  for (const auto &[condition, algorithm] : collective.guards) intra[condition] = leaf(algorithm);
  intra["comm_size=any"] = leaf(collective.unrestricted);
  Json entry = Json::object();
  entry["comm_type=intra"] = intra;
  entry["comm_type=inter"] = leaf(collective.inter);
  return entry;
}

Json fixedEntry(const FixedCollective &collective) {
  if (!*collective.inter) return leaf(collective.intra);
  Json intra = Json::object();
  if (collective.inPlace) intra["is_sendbuf_inplace=yes"] = leaf(collective.inPlace);
  intra["comm_size=any"] = leaf(collective.intra);
  Json entry = Json::object();
  entry["comm_type=intra"] = intra;
  entry["comm_type=inter"] = leaf(collective.inter);
  return entry;
}

/// The whole file: MPICH aborts on a collective it cannot find in it, so every collective it
/// selects for is present, tuned or not.
void writeCsel(const RuleSet &rules, std::ostream &out) {
  Json doc = Json::object();
  for (const auto &[kind, collective] : collectiveTable()) {
    const CollectiveRules *tuned = nullptr;
    for (const CollectiveRules &r : rules)
      if (r.kind == kind) tuned = &r;
    doc["collective=" + std::string(collective.csel)] =
        tuned ? tunedEntry(*tuned) : untunedEntry(collective);
  }
  for (const FixedCollective &collective : fixedCollectives())
    doc["collective=" + std::string(collective.csel)] = fixedEntry(collective);
  out << doc.dump(2) << "\n";
}

class Mpich final : public MpiLibrary {
public:
  std::string_view name() const override { return "mpich"; }
  std::string_view title() const override { return "MPICH 4 collective selection"; }
  std::vector<CollectiveKind> collectives() const override {
    return {K::AllReduce, K::AllGather, K::ReduceScatter, K::AllToAll, K::Broadcast};
  }
  const std::vector<LibraryAlgorithm> &algorithms(CollectiveKind kind) const override {
    static const std::vector<LibraryAlgorithm> none;
    const auto it = collectiveTable().find(kind);
    return it == collectiveTable().end() ? none : it->second.algorithms;
  }
  std::vector<uint32_t> segmentSizes(bool) const override { return {0}; }
  /// CSEL's sizes: avg_msg_size (one block: count × type) for allreduce, bcast and alltoall,
  /// total_msg_size (ranks × count × type) for allgather and reduce_scatter_block.
  uint64_t ruleBytes(const measure::BenchCase &c, size_t count) const override {
    const uint64_t block = measure::blockBytes(c, count);
    return std::string(tunedCollective(c.kind).sizeKey) == "total_msg_size"
               ? block * uint64_t(c.ranks)
               : block;
  }
  std::vector<RulesFormat> formats() const override {
    return {{"mpich-csel", "MPICH 4 collective selection JSON (MPIR level)"}};
  }
  void writeRules(const RuleSet &rules, const std::string &format,
                  std::ostream &out) const override {
    if (format != "mpich-csel")
      throw std::invalid_argument("--rules-format: mpich writes mpich-csel, not '" + format + "'");
    writeCsel(rules, out);
  }
  std::vector<std::string> rulesEnvironment(const std::string &path) const override {
    return {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" + path};
  }
  std::string defaultMpirun() const override { return "mpirun.mpich"; }
  std::string helperName() const override { return "collplan-mpi-baseline-mpich"; }
};

}  // namespace

const MpiLibrary &mpich() {
  static const Mpich library;
  return library;
}

}  // namespace collplan::mpilib
