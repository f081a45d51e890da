// Unit tests of the tuner's choice: winners per size, merged gap-free buckets, determinism.
#include "tuner/Selection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace collplan;
using namespace collplan::tune;

namespace {

/// `times[v][s]` in µs (<= 0: not measured) at sizes 8, 16, 32, ... bytes.
TableMeasurements table(const std::vector<std::vector<double>> &times) {
  TableMeasurements m;
  for (size_t s = 0; s < times[0].size(); ++s) {
    measure::SizePoint p;
    p.bytes = uint64_t(8) << s;
    p.elements = p.bytes / 4;
    p.count = size_t(p.elements);
    m.sizes.push_back(p);
  }
  for (const auto &row : times) {
    std::vector<Measurement> ms;
    for (double t : row) {
      Measurement x;
      x.done = t > 0;
      x.medianUs = x.p99Us = t;
      ms.push_back(x);
    }
    m.byVariant.push_back(ms);
    m.predictedUs.push_back(std::vector<double>(row.size(), 1.0));
    m.eligible.push_back(true);
  }
  return m;
}

void expectCoverage(const std::vector<BucketChoice> &b) {
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.front().minBytes, 0u);
  EXPECT_EQ(b.back().maxBytes, std::numeric_limits<uint64_t>::max());
  for (size_t i = 1; i < b.size(); ++i) {
    EXPECT_EQ(b[i].minBytes, b[i - 1].maxBytes + 1);
    EXPECT_NE(b[i].winner, b[i - 1].winner) << "neighbours with one winner must merge";
  }
}

}  // namespace

TEST(TuneSelection, WinnersMergeIntoGapFreeBuckets) {
  // Variant 0 wins the small sizes, 1 the large ones, 2 never.
  const TableMeasurements m = table({{1, 1, 1, 9, 9}, {2, 2, 2, 3, 3}, {5, 5, 5, 5, 5}});
  const std::vector<SizeChoice> c = chooseWinners(m);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].winner, 0);
  EXPECT_EQ(c[0].runnerUp, 1);
  EXPECT_EQ(c[4].winner, 1);
  EXPECT_EQ(c[4].runnerUp, 2);
  const std::vector<BucketChoice> b = mergeBuckets(m, c);
  ASSERT_EQ(b.size(), 2u);
  expectCoverage(b);
  EXPECT_EQ(b[0].winner, 0);
  EXPECT_EQ(b[0].runnerUp, 1);
  EXPECT_EQ(b[0].sizeIndex, 2u);
  EXPECT_EQ(b[1].minBytes, bucketEdge(32, 64));
  EXPECT_EQ(b[1].runnerUp, 2);  // closest to the winner over 64 and 128 B
}

TEST(TuneSelection, WrongOrIneligibleVariantsNeverWin) {
  TableMeasurements m = table({{1, 1, 1}, {2, 2, 2}, {3, 3, 3}});
  m.byVariant[0][1].wrong = 4;  // wrong at one size: excluded there
  m.eligible[1] = false;        // e.g. pruned or failed elsewhere: excluded everywhere
  const std::vector<SizeChoice> c = chooseWinners(m);
  EXPECT_EQ(c[0].winner, 0);
  EXPECT_EQ(c[1].winner, 2);
  EXPECT_EQ(c[2].winner, 0);
  expectCoverage(mergeBuckets(m, c));
}

TEST(TuneSelection, TiesAreBrokenByPredictionThenIndex) {
  TableMeasurements m = table({{2}, {2}, {2}});
  m.predictedUs[2] = {0.5};
  EXPECT_EQ(chooseWinners(m)[0].winner, 2);  // lower prediction
  m.predictedUs[2] = {3.0};
  const std::vector<SizeChoice> c = chooseWinners(m);
  EXPECT_EQ(c[0].winner, 0);  // equal predictions 1.0: lower index
  EXPECT_EQ(c[0].runnerUp, 1);
  EXPECT_EQ(c[0].marginSigmas, 0);
  // Same measurements, same answer.
  EXPECT_EQ(chooseWinners(m)[0].winner, c[0].winner);
}

/// Two variants within the noise of each other at the middle sizes: the first size's winner
/// keeps them (a tie never switches), and the table switches once, where the other is faster
/// beyond the spread; the switch records by how many standard errors.
TEST(TuneSelection, ABucketSwitchesOnlyBeyondTheSpread) {
  TableMeasurements m = table({{10, 20, 40, 80, 160}, {11, 19.5, 39, 70, 150}});
  for (auto &row : m.byVariant)
    for (Measurement &x : row) x.medianErrorUs = 1;
  const std::vector<SizeChoice> c = chooseWinners(m);
  EXPECT_EQ(c[0].winner, 0);
  EXPECT_EQ(c[1].winner, 0) << "19.5 against 20 is within the spread: no switch";
  EXPECT_EQ(c[2].winner, 0);
  EXPECT_LT(c[2].marginSigmas, 0) << "the incumbent measured slower and kept a tie";
  EXPECT_EQ(c[3].winner, 1);
  EXPECT_NEAR(c[3].marginSigmas, 10 / std::sqrt(2.0), 1e-9);
  const std::vector<BucketChoice> b = mergeBuckets(m, c);
  ASSERT_EQ(b.size(), 2u);
  expectCoverage(b);
  EXPECT_TRUE(std::isnan(b[0].switchSigmas));
  EXPECT_NEAR(b[1].switchSigmas, 10 / std::sqrt(2.0), 1e-9);
  EXPECT_EQ(b[1].firstSize, 3u);
}

TEST(TuneSelection, UnmeasuredSizesLeaveNoGap) {
  // Size 1 has no measurement at all: its neighbours' buckets meet between 8 and 32 bytes.
  const TableMeasurements m = table({{1, -1, 5}, {2, -1, 1}});
  const std::vector<SizeChoice> c = chooseWinners(m);
  EXPECT_EQ(c[1].winner, -1);
  const std::vector<BucketChoice> b = mergeBuckets(m, c);
  ASSERT_EQ(b.size(), 2u);
  expectCoverage(b);
  EXPECT_EQ(b[1].minBytes, bucketEdge(8, 32));
  EXPECT_EQ(bucketEdge(8, 32), 16u);
  EXPECT_EQ(bucketEdge(8, 9), 9u);
}

TEST(TuneSelection, NothingMeasuredGivesNoBuckets) {
  const TableMeasurements m = table({{-1, -1}});
  EXPECT_TRUE(mergeBuckets(m, chooseWinners(m)).empty());
}

/// Medians within two combined standard errors are a tie, won by the lower prediction; a gap
/// beyond the errors is not a tie; exact times (sim, error 0) compare as before.
TEST(TuneSelection, NoisyTiesGoToTheLowerPrediction) {
  TableMeasurements m = table({{5.0}, {5.3}});
  m.predictedUs = {{13.0}, {6.6}};  // variant 0: more slices, predicted slower
  EXPECT_EQ(chooseWinners(m)[0].winner, 0) << "exact medians: the lower one wins";

  m.byVariant[0][0].medianErrorUs = m.byVariant[1][0].medianErrorUs = 0.15;  // 2·√2·0.15 = 0.42
  EXPECT_EQ(chooseWinners(m)[0].winner, 1) << "0.3 us apart within 0.42: the lower prediction";
  EXPECT_EQ(chooseWinners(m)[0].runnerUp, 0);

  m.byVariant[1][0].medianUs = 5.5;  // 0.5 us apart: beyond the errors
  EXPECT_EQ(chooseWinners(m)[0].winner, 0);

  m.byVariant[1][0].medianUs = 5.3;
  m.predictedUs = {{6.6}, {6.6}};  // a tie with equal predictions: the lower median
  EXPECT_EQ(chooseWinners(m)[0].winner, 0);
}
