// Tests of the C++ verifier API: correct schedules pass, mutations fail with precise messages.
#include "ScheduleTestSupport.h"

#include "compiler/analysis/ScheduleVerifier.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <regex>

using namespace collplan;
using collplan::testing::IRFixture;
using collplan::testing::ringAllreduceText;

namespace {

/// Replaces the first match of `pattern` in `text` (the test fails when there is none).
std::string mutate(const std::string &text, const std::string &pattern,
                   const std::string &replacement) {
  std::regex re(pattern);
  EXPECT_TRUE(std::regex_search(text, re)) << "pattern not found: " << pattern;
  return std::regex_replace(text, re, replacement, std::regex_constants::format_first_only);
}

TEST(Verifier, RingAllreduceVerifiesForManyRankCounts) {
  for (int n : {1, 2, 3, 4, 5, 7, 8, 16}) {
    IRFixture f;
    auto module = f.parse(ringAllreduceText(n));
    ASSERT_TRUE(module);
    EXPECT_TRUE(mlir::succeeded(verifySchedule(IRFixture::firstSchedule(*module)))) << n;
    EXPECT_TRUE(f.diagnostics().empty()) << n << ": " << f.diagnostics().front();
  }
}

TEST(Verifier, ScalesTo256Ranks) {
  IRFixture f;
  auto module = f.parse(ringAllreduceText(256));
  ASSERT_TRUE(module);
  EXPECT_TRUE(mlir::succeeded(verifySchedule(IRFixture::firstSchedule(*module))));
}

TEST(Verifier, DroppedReductionIsAMissingContribution) {
  IRFixture f;
  // Rank 2 forwards chunk 0 without adding its own contribution.
  std::string text = mutate(ringAllreduceText(4), R"(%s_0_1 = coll.reduce %x_0_1, %in_2_0 at rank 2)",
                            "%s_0_1 = coll.copy %x_0_1 to rank 2");
  auto module = f.parse(text);
  ASSERT_TRUE(module);
  EXPECT_TRUE(mlir::failed(verifySchedule(IRFixture::firstSchedule(*module))));
  ASSERT_FALSE(f.diagnostics().empty());
  EXPECT_EQ(f.diagnostics().front(), "output rank 0 chunk 0 lacks the contribution of rank 2 chunk 0");
}

TEST(Verifier, RepeatedInputIsDoubleCounting) {
  IRFixture f;
  // Rank 3 adds rank 2's input again instead of its own.
  std::string text = mutate(ringAllreduceText(4), R"(coll.reduce %x_0_2, %in_3_0 at rank 3)",
                            "coll.reduce %x_0_2, %x_0_1 at rank 3");
  // %x_0_1 lives at rank 2: make it legal by allowing remote reads, so only the
  // double count is left to find.
  text = mutate(text, "op sum \\{", "op sum remote_reads {");
  auto module = f.parse(text);
  ASSERT_TRUE(module);
  EXPECT_TRUE(mlir::failed(verifySchedule(IRFixture::firstSchedule(*module))));
  ASSERT_FALSE(f.diagnostics().empty());
  EXPECT_NE(f.diagnostics().front().find("counts the contribution of rank 1 chunk 0 twice"),
            std::string::npos)
      << f.diagnostics().front();
}

TEST(Verifier, ErrorBudgetLimitsDiagnostics) {
  IRFixture f;
  // Every output of chunk 0 lacks rank 2's contribution: 4 errors, 2 reported.
  std::string text = mutate(ringAllreduceText(4), R"(%s_0_1 = coll.reduce %x_0_1, %in_2_0 at rank 2)",
                            "%s_0_1 = coll.copy %x_0_1 to rank 2");
  auto module = f.parse(text);
  ASSERT_TRUE(module);
  VerifyOptions options;
  options.maxErrors = 2;
  EXPECT_TRUE(mlir::failed(verifySchedule(IRFixture::firstSchedule(*module), options)));
  EXPECT_EQ(f.diagnostics().size(), 2u);
}

const char *kReorderedAllreduce = R"(
coll.schedule @order allreduce ranks 2 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %b to rank 0
  %y = coll.copy %a to rank 1
  %s0 = coll.reduce %a, %x at rank 0
  %s1 = coll.reduce %b, %y at rank 1
  coll.output %s0 rank 0 chunk 0
  coll.output %s1 rank 1 chunk 0
}
)";

TEST(Verifier, DeterminismCheckCanBeSwitchedOff) {
  IRFixture f;
  auto module = f.parse(kReorderedAllreduce);
  ASSERT_TRUE(module);
  auto schedule = IRFixture::firstSchedule(*module);
  EXPECT_TRUE(mlir::failed(verifySchedule(schedule)));
  ASSERT_EQ(f.diagnostics().size(), 1u);
  EXPECT_NE(f.diagnostics()[0].find("not bitwise identical"), std::string::npos);
  f.clearDiagnostics();
  VerifyOptions lenient;
  lenient.checkDeterminism = false;
  EXPECT_TRUE(mlir::succeeded(verifySchedule(schedule, lenient)));
  EXPECT_TRUE(f.diagnostics().empty());
}

TEST(Verifier, NaryReduceEqualsItsLeftFold) {
  // reduce(a, b, c) at one rank and reduce(reduce(a, b), c) at another are the same tree.
  IRFixture f;
  auto module = f.parse(R"(
coll.schedule @fold allreduce ranks 3 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %c = coll.input rank 2 chunk 0
  %b0 = coll.copy %b to rank 0
  %c0 = coll.copy %c to rank 0
  %s0 = coll.reduce %a, %b0, %c0 at rank 0
  %a1 = coll.copy %a to rank 1
  %c1 = coll.copy %c to rank 1
  %p1 = coll.reduce %a1, %b at rank 1
  %s1 = coll.reduce %p1, %c1 at rank 1
  %s2 = coll.copy %s0 to rank 2
  coll.output %s0 rank 0 chunk 0
  coll.output %s1 rank 1 chunk 0
  coll.output %s2 rank 2 chunk 0
}
)");
  ASSERT_TRUE(module);
  EXPECT_TRUE(mlir::succeeded(verifySchedule(IRFixture::firstSchedule(*module))))
      << f.diagnostics().front();
}

// The verifier indexes ranks x max(ranks, chunks) x slices outputs up front: the op verifier
// refuses a spec beyond CollectiveSpec::kMaxPositions before coll-verify could allocate 80 GB.
TEST(Verifier, OversizedScheduleIsRefusedWhileParsing) {
  IRFixture f;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "coll.schedule @s allreduce ranks 4096 op sum {\n}\n", &f.context());
  EXPECT_FALSE(module);
  ASSERT_EQ(f.diagnostics().size(), 1u);
  EXPECT_EQ(f.diagnostics()[0],
            "'coll.schedule' op allreduce is too large: ranks x max(ranks, chunks) x slices = "
            "4096 x 4096 x 1 exceeds the 4194304 (rank, chunk, slice) positions the verifiers index");
}

// A rank count beyond an int is not read modulo 2^32: 4294967298 ranks are not 2 ranks.
TEST(Verifier, RankCountBeyondAnIntIsRefused) {
  IRFixture f;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"(
coll.schedule @s allreduce ranks 4294967298 op sum {
  %a = coll.input rank 0 chunk 0
  %b = coll.input rank 1 chunk 0
  %x = coll.copy %a to rank 1
  %r = coll.reduce %x, %b at rank 1
  coll.output %r rank 1 chunk 0
  %y = coll.copy %r to rank 0
  coll.output %y rank 0 chunk 0
}
)",
                                                        &f.context());
  EXPECT_FALSE(module);
  ASSERT_FALSE(f.diagnostics().empty());
  EXPECT_NE(f.diagnostics()[0].find("ranks 2147483647 is above the limit of 65536"), std::string::npos) << f.diagnostics()[0];
}

}  // namespace
