// Compiled plans whose ranks run one program up to a rotation or XOR of ranks are stored as that
// program, and every rank's instantiation from the file is the explicit compile, op for op.
#include "compiler/lowering/Algorithms.h"
#include "runtime/plan/Deadlock.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/Symmetry.h"
#include "tests/compiler/ScheduleTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace collplan;

namespace {

using collplan::testing::AlgorithmCase;

constexpr int kRankCounts[] = {2, 3, 4, 5, 7, 8, 16, 64};

/// Every op of rank `rank`'s program in `loaded` equals the compiled one.
void expectSameProgram(const Plan &compiled, const Plan &loaded, int rank) {
  const RankProgram &want = compiled.programs.at(size_t(rank));
  const RankProgram &have = loaded.programs.at(size_t(rank));
  ASSERT_EQ(have.channels.size(), want.channels.size()) << "rank " << rank;
  for (size_t c = 0; c < want.channels.size(); ++c) {
    ASSERT_EQ(have.channels[c].ops.size(), want.channels[c].ops.size())
        << "rank " << rank << " channel " << c;
    for (size_t i = 0; i < want.channels[c].ops.size(); ++i)
      ASSERT_EQ(planOpToJson(have.channels[c].ops[i]), planOpToJson(want.channels[c].ops[i]))
          << "rank " << rank << " channel " << c << " op " << i;
  }
}

/// The ranks a test loads one by one: the first, second, middle and last.
std::set<int> sampleRanks(int ranks) { return {0, 1, ranks / 2, ranks - 1}; }

class SymmetricPlan : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(SymmetricPlan, EveryRanksInstantiationIsTheExplicitCompile) {
  const AlgorithmCase &c = GetParam();
  for (int n : kRankCounts)
    for (const Plan &plan : collplan::testing::compiledPlans(c, n)) {
      if (!plan.symmetry) continue;
      SCOPED_TRACE(std::string(toString(plan.symmetry->group)) + " N=" + std::to_string(n) +
                   " units " + std::to_string(plan.units));
      const nlohmann::json doc = planToJson(plan);
      ASSERT_FALSE(doc.contains("programs"));
      const Plan every = planFromJson(doc, "compiled");  // validated and proven
      for (int r = 0; r < n; ++r) expectSameProgram(plan, every, r);
      // Its deadlock check ran rank 0 in lockstep, not every rank.
      EXPECT_TRUE(symmetricRunCompletes(every));
      for (int r : sampleRanks(n)) {
        PlanLoadOptions options;
        options.onlyRank = r;
        expectSameProgram(plan, planFromJson(doc, "compiled", options), r);
      }
    }
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, SymmetricPlan,
                         ::testing::ValuesIn(collplan::testing::everyAlgorithmCase()),
                         [](const auto &info) {
                           return collplan::testing::algorithmCaseName(info.param);
                         });

/// The schedules symmetric by construction, at every rank count their group admits: a change
/// that loses the compact form (a rank-dependent step, an asymmetric fold order) fails here.
struct ExpectedSymmetry {
  const char *algorithm;
  CollectiveKind kind;
  SymmetryGroup group;
  /// Also the 2-slice plan. Recursive doubling's slices of one round travel in the order of
  /// their chunks' absolute ranks, so only its 1-slice plan is symmetric.
  bool sliced = true;
};

TEST(SymmetricPlans, TheTextbookSymmetricSchedulesCompileCompact) {
  const ExpectedSymmetry expected[] = {
      {"ring", CollectiveKind::AllReduce, SymmetryGroup::Rotation},
      {"ring", CollectiveKind::AllGather, SymmetryGroup::Rotation},
      {"ring", CollectiveKind::ReduceScatter, SymmetryGroup::Rotation},
      {"direct", CollectiveKind::AllToAll, SymmetryGroup::Rotation},
      {"dissemination", CollectiveKind::Barrier, SymmetryGroup::Rotation},
      {"pairwise", CollectiveKind::AllToAll, SymmetryGroup::Xor},
      {"pairwise-barrier", CollectiveKind::Barrier, SymmetryGroup::Xor},
      {"recursive-doubling", CollectiveKind::AllGather, SymmetryGroup::Xor, false},
      // Each rank folds the lower rank's partial first: rank-ordered receives.
      {"recursive-doubling", CollectiveKind::AllReduce, SymmetryGroup::Xor},
  };
  for (const ExpectedSymmetry &e : expected)
    for (int n : kRankCounts) {
      if (e.group == SymmetryGroup::Xor && (n & (n - 1)) != 0) continue;
      const std::vector<Plan> plans =
          collplan::testing::compiledPlans({findAlgorithm(e.algorithm), e.kind}, n);
      for (size_t k = 0; k < (e.sliced ? plans.size() : std::min<size_t>(plans.size(), 1)); ++k) {
        const Plan &plan = plans[k];
        ASSERT_TRUE(plan.symmetry.has_value())
            << e.algorithm << " " << toString(e.kind) << " N=" << n << " units " << plan.units;
        if (n > 2)  // on 2 ranks rotation and XOR are one map; detection names rotation
          EXPECT_EQ(plan.symmetry->group, e.group) << e.algorithm << " N=" << n;
      }
    }
}

}  // namespace
