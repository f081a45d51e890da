// Unit tests of MPI library tuning without MPI: the algorithm lists, the rules chosen from
// measurements, and the rules files as Open MPI and MPICH read them.
#include "tuner/mpilib/LibraryTune.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

using namespace collplan;
using namespace collplan::mpilib;

namespace {

/// The numbers of an Open MPI text rules file as coll/tuned reads them: `#` to the line's end
/// is a comment.
std::vector<long> ompiNumbers(const std::string &text) {
  std::vector<long> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    long v;
    while (words >> v) out.push_back(v);
  }
  return out;
}

/// A table of `kind` on `ranks` ranks with three sizes (rule bytes 64, 4096, 65536) and the given
/// winners among `choices` (each choice measured at every size).
LibraryTable table(const MpiLibrary &library, CollectiveKind kind, int ranks,
                   const std::vector<std::string> &choices, const std::vector<int> &winner) {
  LibraryTable t;
  t.benchCase.kind = kind;
  t.benchCase.ranks = ranks;
  const uint64_t bytes[] = {64, 4096, 65536};
  for (uint64_t b : bytes) {
    measure::SizePoint p;
    p.bytes = b;
    p.count = b / 4;
    t.sizes.push_back(p);
    t.ruleBytes.push_back(b);
    t.defaultUs.push_back(1);
  }
  for (const std::string &name : choices) {
    const LibraryAlgorithm *a = library.findAlgorithm(kind, name);
    EXPECT_NE(a, nullptr) << name;
    t.choices.push_back({{a, 0}, {1, 1, 1}, ""});
  }
  t.winner = winner;
  return t;
}

TEST(MpiLibrary, RegistryNamesBothLibraries) {
  EXPECT_EQ(mpiLibraryNames(), "ompi-tuned, mpich");
  EXPECT_EQ(findMpiLibrary("ompi-tuned"), &openMpiTuned());
  EXPECT_EQ(findMpiLibrary("mpich"), &mpich());
  EXPECT_EQ(findMpiLibrary("cpu-shm"), nullptr);
}

TEST(MpiLibrary, ChoicesFollowTheAlgorithmsRankLimitsAndSegments) {
  const MpiLibrary &ompi = openMpiTuned();
  auto labels = [&](CollectiveKind kind, int ranks, bool quick) {
    std::vector<std::string> out;
    for (const LibraryChoice &c : ompi.choices(kind, ranks, quick)) out.push_back(c.label());
    return out;
  };
  const auto two = labels(CollectiveKind::AllGather, 2, true);
  EXPECT_NE(std::find(two.begin(), two.end(), "two_proc"), two.end());
  const auto three = labels(CollectiveKind::AllGather, 3, true);
  EXPECT_EQ(std::find(three.begin(), three.end(), "two_proc"), three.end());
  EXPECT_EQ(std::find(three.begin(), three.end(), "neighbor"), three.end());
  const auto four = labels(CollectiveKind::AllGather, 4, true);
  EXPECT_NE(std::find(four.begin(), four.end(), "neighbor"), four.end());
  // A segmented algorithm at each segment size; the others once.
  const auto full = labels(CollectiveKind::AllReduce, 4, false);
  EXPECT_EQ(std::count(full.begin(), full.end(), "ring"), 1);
  EXPECT_NE(std::find(full.begin(), full.end(), "segmented_ring/64K"), full.end());
  // Open MPI's six allreduce algorithms and its fixed decision, which a rule selects with 0.
  const auto quick = labels(CollectiveKind::AllReduce, 4, true);
  EXPECT_EQ(quick.size(), 7u);
  EXPECT_EQ(quick.front(), "fixed_decision");
  EXPECT_EQ(ompi.findAlgorithm(CollectiveKind::AllReduce, "fixed_decision")->id, 0);
}

TEST(MpiLibrary, RuleBytesAreWhatEachLibraryCompares) {
  measure::BenchCase c;
  c.ranks = 4;
  c.dtype = DType::F32;
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::Broadcast,
                              CollectiveKind::AllToAll}) {
    c.kind = kind;
    EXPECT_EQ(mpich().ruleBytes(c, 100), 400u) << toString(kind);  // avg_msg_size: one block
  }
  c.kind = CollectiveKind::AllGather;
  EXPECT_EQ(mpich().ruleBytes(c, 100), 1600u);  // total_msg_size
  EXPECT_EQ(openMpiTuned().ruleBytes(c, 100), 1600u);
  c.kind = CollectiveKind::AllToAll;
  EXPECT_EQ(openMpiTuned().ruleBytes(c, 100), 1600u);  // coll/tuned: all blocks
  c.kind = CollectiveKind::ReduceScatter;
  EXPECT_EQ(openMpiTuned().ruleBytes(c, 100), 1600u);
  c.kind = CollectiveKind::AllReduce;
  EXPECT_EQ(openMpiTuned().ruleBytes(c, 100), 400u);
}

TEST(MpiLibrary, RulesStartAtZeroMergeNeighboursAndSortByRanks) {
  const MpiLibrary &ompi = openMpiTuned();
  const RuleSet rules = selectRules(
      {table(ompi, CollectiveKind::AllReduce, 4, {"recursive_doubling", "ring"}, {0, 0, 1}),
       table(ompi, CollectiveKind::AllReduce, 2, {"recursive_doubling", "ring"}, {1, 0, -1})});
  ASSERT_EQ(rules.size(), 1u);
  ASSERT_EQ(rules[0].byRanks.size(), 2u);
  const RankRules &two = rules[0].byRanks[0], &four = rules[0].byRanks[1];
  EXPECT_EQ(two.ranks, 2);
  ASSERT_EQ(two.rules.size(), 2u);  // the unmeasured last size adds nothing
  EXPECT_EQ(two.rules[0].fromBytes, 0u);
  EXPECT_EQ(two.rules[0].choice.label(), "ring");
  EXPECT_EQ(two.rules[1].fromBytes, 65u);  // just above the previous size's rule bytes
  EXPECT_EQ(four.ranks, 4);
  ASSERT_EQ(four.rules.size(), 2u);
  EXPECT_EQ(four.rules[0].choice.label(), "recursive_doubling");
  EXPECT_EQ(four.rules[1].fromBytes, 4097u);
}

TEST(MpiLibrary, WinnersKeepThePreviousChoiceWithinTheNoiseMargin) {
  LibraryTable t = table(openMpiTuned(), CollectiveKind::AllReduce, 4,
                         {"recursive_doubling", "ring", "rabenseifner"}, {});
  t.choices[0].us = {1.0, 1.04, 2.0};  // within 5 % of the ring at 4 KiB, far behind at 64 KiB
  t.choices[1].us = {2.0, 1.00, 1.0};
  t.choices[2].us.clear();             // its job failed
  EXPECT_EQ(chooseWinners(t), (std::vector<int>{0, 0, 1}));
  t.choices[0].us[1] = 1.06;
  EXPECT_EQ(chooseWinners(t), (std::vector<int>{0, 1, 1}));
  t.choices[0].us.clear();
  t.choices[1].us.clear();
  EXPECT_EQ(chooseWinners(t), (std::vector<int>{-1, -1, -1}));
}

TEST(MpiLibrary, OpenMpiTextRulesAreTheNumbersCollTunedReads) {
  const MpiLibrary &ompi = openMpiTuned();
  LibraryTable bcast = table(ompi, CollectiveKind::Broadcast, 4, {"binomial", "pipeline"}, {0, 1, 1});
  bcast.choices[1].choice.segmentBytes = 8192;
  const RuleSet rules = selectRules(
      {table(ompi, CollectiveKind::AllReduce, 4, {"recursive_doubling", "ring"}, {0, 0, 1}), bcast});
  const std::string text = rulesText(ompi, rules, "ompi-text");
  // 2 collectives; allreduce (2): 1 size, 4 ranks, 2 rules; bcast (7): 1 size, 4 ranks, 2 rules.
  const std::vector<long> expected = {2, 2, 1, 4, 2, 0, 3, 0, 0, 4097, 4, 0, 0,
                                      7, 1, 4, 2, 0, 6, 0, 0, 65, 3, 0, 8192};
  EXPECT_EQ(ompiNumbers(text), expected) << text;
  EXPECT_NE(text.find("OMPI_MCA_coll_tuned_use_dynamic_rules=1"), std::string::npos);
}

TEST(MpiLibrary, OpenMpiJsonRulesCoverEverySizeWithRanges) {
  const MpiLibrary &ompi = openMpiTuned();
  const RuleSet rules = selectRules(
      {table(ompi, CollectiveKind::ReduceScatter, 2, {"butterfly", "fixed_decision"}, {0, 1, 1}),
       table(ompi, CollectiveKind::ReduceScatter, 8, {"butterfly"}, {0, 0, 0})});
  const nlohmann::json doc = nlohmann::json::parse(rulesText(ompi, rules, "ompi-json"));
  EXPECT_EQ(doc.at("rule_file_version"), 3);
  EXPECT_EQ(doc.at("module"), "tuned");
  const nlohmann::json &sizes = doc.at("collectives").at("reducescatterblock");
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[0].at("comm_size_min"), 0);
  EXPECT_EQ(sizes[0].at("comm_size_max"), 7);
  EXPECT_EQ(sizes[1].at("comm_size_min"), 8);
  EXPECT_EQ(sizes[1].at("comm_size_max"), "inf");
  const nlohmann::json &msg = sizes[0].at("rules");
  ASSERT_EQ(msg.size(), 2u);
  EXPECT_EQ(msg[0].at("msg_size_min"), 0);
  EXPECT_EQ(msg[0].at("msg_size_max"), 64);
  EXPECT_EQ(msg[0].at("alg"), "butterfly");
  EXPECT_EQ(msg[1].at("msg_size_min"), 65);
  EXPECT_EQ(msg[1].at("alg"), 0);  // the fixed decision: Open MPI's "ignore"
  EXPECT_EQ(msg[1].at("msg_size_max"), "inf");
  EXPECT_THROW(rulesText(ompi, rules, "mpich-csel"), std::invalid_argument);
}

TEST(MpiLibrary, MpichSelectionNamesEveryCollectiveAndGuardsRestrictions) {
  const MpiLibrary &m = mpich();
  const RuleSet rules = selectRules(
      {table(m, CollectiveKind::AllReduce, 4,
             {"MPIR_Allreduce_intra_recursive_doubling",
              "MPIR_Allreduce_intra_reduce_scatter_allgather"},
             {0, 1, 1}),
       table(m, CollectiveKind::AllGather, 8,
             {"MPIR_Allgather_intra_recursive_doubling"}, {0, 0, 0})});
  // Ordered as written: MPICH takes the first matching key.
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(rulesText(m, rules, ""));
  // MPICH aborts on a collective its file lacks: blocking, non-blocking and neighbourhood ones.
  for (const char *c : {"collective=barrier", "collective=iallreduce", "collective=alltoallw",
                        "collective=ineighbor_alltoallw", "collective=bcast", "collective=scan"})
    EXPECT_TRUE(doc.contains(c)) << c;
  EXPECT_EQ(doc.size(), 44u);
  const nlohmann::ordered_json &intra = doc.at("collective=allreduce").at("comm_type=intra");
  const nlohmann::ordered_json &four = intra.at("comm_size=any");  // the only (so last) size
  EXPECT_EQ(four.begin().key(), "is_op_built_in=no");      // guards come first
  EXPECT_TRUE(four.contains("avg_msg_size<=64"));  // recursive doubling up to 64 B
  // reduce_scatter_allgather needs count >= 4 on 4 ranks: smaller counts go to recursive
  // doubling.
  const nlohmann::ordered_json &rsag = four.at("avg_msg_size=any");
  EXPECT_TRUE(rsag.at("count<=3").contains("algorithm=MPIR_Allreduce_intra_recursive_doubling"));
  EXPECT_TRUE(rsag.at("count=any").contains("algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather"));
  EXPECT_TRUE(doc.at("collective=allreduce").at("comm_type=inter")
                  .contains("algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast"));
  // Recursive-doubling allgather runs on powers of two only; other sizes run the ring.
  const nlohmann::ordered_json &ag =
      doc.at("collective=allgather").at("comm_type=intra").at("comm_size=any").at("total_msg_size=any");
  EXPECT_TRUE(ag.at("comm_size=pow2").contains("algorithm=MPIR_Allgather_intra_recursive_doubling"));
  EXPECT_TRUE(ag.at("comm_size=any").contains("algorithm=MPIR_Allgather_intra_ring"));
}

TEST(MpiLibrary, ReportRoundTripsAndNamesItsErrors) {
  LibraryTuneResult result;
  result.library = &openMpiTuned();
  result.tables = {table(openMpiTuned(), CollectiveKind::AllReduce, 4,
                         {"recursive_doubling", "ring"}, {0, 0, 1})};
  result.rules = selectRules(result.tables);
  const nlohmann::json report = libraryReportJson(result);
  const LibraryTuneResult back = readLibraryReport(report, "r.json");
  EXPECT_EQ(rulesText(openMpiTuned(), back.rules, ""), rulesText(openMpiTuned(), result.rules, ""));

  auto errorOf = [](const nlohmann::json &j) {
    try {
      readLibraryReport(j, "r.json");
    } catch (const std::invalid_argument &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json bad = report;
  bad["library"] = "lam";
  EXPECT_NE(errorOf(bad).find("unknown library 'lam'"), std::string::npos) << errorOf(bad);
  bad = report;
  bad["tables"][0]["choices"][1]["algorithm"] = "hypercube";
  EXPECT_NE(errorOf(bad).find("no allreduce algorithm 'hypercube'"), std::string::npos);
  bad = report;
  bad["tables"][0]["winner"][0] = 7;
  EXPECT_NE(errorOf(bad).find("\"winner\" 7 names no measured choice"), std::string::npos);
  bad = report;
  bad["tables"][0].erase("sizes");
  EXPECT_NE(errorOf(bad).find("r.json: not a plan-tune library report"), std::string::npos);
  bad = report;
  bad["tables"][0]["collective"] = "allscatter";
  EXPECT_NE(errorOf(bad).find("unknown collective 'allscatter'"), std::string::npos);
}

}  // namespace
