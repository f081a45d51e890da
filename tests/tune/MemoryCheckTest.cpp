// plan-bench's memory estimates: plans too large for this machine are refused before they are built.
#include "tuner/measure/MemoryCheck.h"
#include "tuner/measure/PlanSource.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace collplan;
using namespace collplan::measure;

namespace {

BenchCase allreduceOn(int ranks) {
  BenchCase c;
  c.kind = CollectiveKind::AllReduce;
  c.op = ReduceOp::Sum;
  c.ranks = ranks;
  return c;
}

// 65536 ranks: the recursive-doubling (65536 x 17), ring (65536 x 131071) and two-shot
// (4 x 65536 x 65535) plans have 2.6e10 ops, at 288 B each 6.9 TiB, refused at once instead of
// growing until the machine runs out of memory.
TEST(BenchMemory, BuiltInPlansBeyondTheMachinesMemoryAreRefusedBeforeBuilding) {
  try {
    PlanSource::builtIn(allreduceOn(65536));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the built-in plans for allreduce on 65536 ranks (25770590208 ops) and "
                        "the ranks' prepared programs need 6912.2 GiB, more than this machine's "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("of memory: lower --ranks"), std::string::npos) << what;
  }
}

TEST(BenchMemory, PlansThatFitAreBuiltAndCounted) {
  const PlanSource source = PlanSource::builtIn(allreduceOn(8));
  // recursive doubling (8 x 4 ops), ring (8 x 15) and two-shot (4 x 8 x 7): the three plans
  // the default rules use.
  EXPECT_EQ(source.totalOps(), 8u * 4u + 8u * 15u + 4u * 8u * 7u);
  EXPECT_GT(physicalMemoryBytes(), 0);
  EXPECT_NO_THROW(requireMemory(1e6, "a megabyte", "never"));
  EXPECT_THROW(requireMemory(1e30, "1e30 bytes", "never"), std::invalid_argument);
}

}  // namespace
