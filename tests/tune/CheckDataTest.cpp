// The data check of plan-bench and plan-tune catches what a wrong plan does to the output: a
// unit moved by a few elements, two blocks swapped, a block from the wrong peer. (With inputs
// that repeated every 4 elements, a unit moved by 4 left every element as expected.)
#include "tuner/measure/CheckData.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace collplan::measure {
namespace {

BenchCase caseOf(CollectiveKind kind, DType dtype, ReduceOp op, int ranks) {
  BenchCase c;
  c.kind = kind;
  c.dtype = dtype;
  c.op = op;
  c.ranks = ranks;
  c.root = 0;
  return c;
}

/// Rank `rank`'s correct output for `count` elements per block.
std::vector<unsigned char> expectedOutput(const BenchCase &c, int rank, size_t count) {
  std::vector<unsigned char> out(outputBytes(c, rank, count));
  fillExpected(c, rank, count, out.data());
  return out;
}

std::string name(const BenchCase &c) {
  return std::string(toString(c.kind)) + " " + std::string(toString(c.dtype)) + " " +
         std::string(toString(c.op));
}

TEST(CheckData, TheReferenceOutputHasNothingWrong) {
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather,
                              CollectiveKind::ReduceScatter, CollectiveKind::AllToAll})
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max})
      for (DType dtype : {DType::F32, DType::BF16, DType::I32, DType::U8}) {
        const BenchCase c = caseOf(kind, dtype, op, 4);
        const std::vector<unsigned char> out = expectedOutput(c, 1, 64);
        EXPECT_EQ(countWrong(c, 1, 64, out.data()), 0u) << name(c);
      }
}

/// A unit of 16 elements written 4 elements off (a wrong offset by a multiple of 4): caught
/// for every reduction op.
TEST(CheckData, AUnitMovedByFourElementsIsCaught) {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max}) {
    const BenchCase c = caseOf(CollectiveKind::AllReduce, DType::F32, op, 4);
    const size_t count = 64, unit = 16;
    std::vector<unsigned char> out = expectedOutput(c, 0, count);
    std::vector<unsigned char> moved = out;
    std::memmove(moved.data() + (unit + 4) * 4, out.data() + unit * 4, unit * 4);
    EXPECT_GT(countWrong(c, 0, count, moved.data()), 0u) << name(c);
  }
}

TEST(CheckData, TwoSwappedBlocksAreCaught) {
  const BenchCase c = caseOf(CollectiveKind::AllGather, DType::I32, ReduceOp::Sum, 4);
  const size_t count = 32;
  std::vector<unsigned char> out = expectedOutput(c, 2, count);
  std::swap_ranges(out.begin(), out.begin() + count * 4, out.begin() + count * 4);
  // Both blocks wrong, but for the few elements where the two peers' values happen to agree.
  EXPECT_GT(countWrong(c, 2, count, out.data()), count);
}

/// Rank 3's all-to-all output block from peer 1 replaced by what peer 1 sent rank 2.
TEST(CheckData, ABlockFromTheWrongPeerIsCaught) {
  const BenchCase c = caseOf(CollectiveKind::AllToAll, DType::F32, ReduceOp::Sum, 4);
  const size_t count = 32;
  std::vector<unsigned char> rank3 = expectedOutput(c, 3, count);
  const std::vector<unsigned char> rank2 = expectedOutput(c, 2, count);
  std::memcpy(rank3.data() + count * 4, rank2.data() + count * 4, count * 4);
  EXPECT_GT(countWrong(c, 3, count, rank3.data()), count / 2);
}

}  // namespace
}  // namespace collplan::measure
