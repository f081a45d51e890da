// fitAlphaBeta: exact recovery of α and β from synthetic data, fit quality, bad input.
#include "tuner/calibrate/LeastSquares.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace collplan::calibrate;

namespace {

std::vector<double> sweep() {
  std::vector<double> sizes;
  for (double m = 8; m <= 64.0 * 1024 * 1024; m *= 4) sizes.push_back(m);
  return sizes;
}

std::vector<double> line(const std::vector<double> &sizes, double alphaUs, double gbps) {
  std::vector<double> t;
  for (double m : sizes) t.push_back(alphaUs + m / (gbps * 1e3));
  return t;
}

}  // namespace

TEST(LeastSquares, RecoversAlphaAndBetaExactlyRelative) {
  auto sizes = sweep();
  AlphaBetaFit fit = fitAlphaBeta(sizes, line(sizes, 3.25, 7.5), FitWeighting::Relative);
  EXPECT_NEAR(fit.alphaUs, 3.25, 1e-9);
  EXPECT_NEAR(fit.bandwidthGBps, 7.5, 1e-9);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  EXPECT_LT(fit.maxAbsResidual, 1e-12);
  EXPECT_LT(fit.medianAbsResidual, 1e-12);
  ASSERT_EQ(fit.relativeResiduals.size(), sizes.size());
}

TEST(LeastSquares, RecoversAlphaAndBetaExactlyAbsolute) {
  auto sizes = sweep();
  AlphaBetaFit fit = fitAlphaBeta(sizes, line(sizes, 12.0, 0.8), FitWeighting::Absolute);
  EXPECT_NEAR(fit.alphaUs, 12.0, 1e-6);
  EXPECT_NEAR(fit.bandwidthGBps, 0.8, 1e-9);
  EXPECT_NEAR(fit.predictUs(1e6), 12.0 + 1e6 / 800.0, 1e-6);
}

TEST(LeastSquares, TwoPointsDefineTheLine) {
  AlphaBetaFit fit = fitAlphaBeta({0, 1000}, {2, 4});
  EXPECT_DOUBLE_EQ(fit.alphaUs, 2);
  EXPECT_DOUBLE_EQ(fit.usPerByte, 0.002);
  EXPECT_DOUBLE_EQ(fit.bandwidthGBps, 0.5);
}

TEST(LeastSquares, NoisyDataReportsResidualsAndWorstPoint) {
  std::vector<double> sizes = {8, 1024, 65536, 1 << 20, 16 << 20};
  std::vector<double> t = line(sizes, 5, 2);
  t[3] *= 1.5;  // an outlier at 1 MiB
  AlphaBetaFit fit = fitAlphaBeta(sizes, t);
  EXPECT_EQ(fit.worstPoint, 3u);
  EXPECT_GT(fit.maxAbsResidual, 0.1);
  EXPECT_LT(fit.r2, 1.0);
}

TEST(LeastSquares, BadInputIsAClearError) {
  auto expectError = [](const std::vector<double> &x, const std::vector<double> &y,
                        const std::string &fragment) {
    try {
      fitAlphaBeta(x, y);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const std::invalid_argument &e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expectError({8}, {1}, "two sizes");
  expectError({8, 8, 8}, {1, 2, 3}, "two distinct sizes");
  expectError({8, 16}, {1}, "2 sizes but 1 times");
  expectError({8, NAN}, {1, 2}, "not a finite");
  expectError({8, 16}, {1, 0}, "time <= 0");
  expectError({8, 16}, {1e300, 2e300}, "the times cannot be weighed");
}

TEST(LeastSquares, Median) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(LeastSquares, TwoRegimesRecoverTheBreakExactly) {
  auto sizes = sweep();  // 8 B ... 32 MiB in factors of 4
  std::vector<double> t;
  for (double m : sizes) t.push_back(2.0 + m / (m < 1e6 ? 40e3 : 4e3));  // cache below 1 MB
  TwoRegimeFit fit = fitTwoRegimes(sizes, t);
  ASSERT_TRUE(fit.hasBreak());
  EXPECT_EQ(sizes[fit.breakIndex], 2097152.0);  // the first size >= 1e6
  EXPECT_NEAR(fit.cache.alphaUs, 2.0, 1e-9);
  EXPECT_NEAR(fit.cache.bandwidthGBps, 40.0, 1e-9);
  EXPECT_NEAR(fit.memBandwidthGBps, 4.0, 1e-9);
  EXPECT_LT(fit.maxAbsResidual, 1e-12);
  // A single line has no break.
  TwoRegimeFit one = fitTwoRegimes(sizes, line(sizes, 1, 2));
  EXPECT_FALSE(one.hasBreak());
  EXPECT_NEAR(one.memBandwidthGBps, 2.0, 1e-9);
}
