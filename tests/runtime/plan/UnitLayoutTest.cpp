// UnitLayout: uneven counts, count 0/1/less than units, per-block layouts, agreement across calls.
#include "runtime/plan/UnitLayout.h"

#include "runtime/plan/PlanValidate.h"

#include <gtest/gtest.h>

using namespace collplan;

namespace {

/// Units of one block must tile [0, count) exactly, each differing by at most one element.
void expectTiles(const UnitLayout &layout, uint32_t units, size_t count) {
  size_t next = 0, sum = 0, smallest = SIZE_MAX, largest = 0;
  for (uint32_t u = 0; u < units; ++u) {
    EXPECT_EQ(layout.elementOffset(u), next) << "unit " << u;
    const size_t n = layout.elements(u, 1);
    next += n;
    sum += n;
    smallest = std::min(smallest, n);
    largest = std::max(largest, n);
  }
  EXPECT_EQ(sum, count);
  EXPECT_LE(largest - smallest, 1u);
}

}  // namespace

TEST(PlanUnitLayout, EvenSplit) {
  UnitLayout layout(CollectiveKind::AllReduce, 4, 4, 1024, DType::F32);
  EXPECT_EQ(layout.unitsPerBlock(), 4u);
  EXPECT_EQ(layout.byteRange(1, 2), (ByteRange{256 * 4, 512 * 4}));
  EXPECT_EQ(layout.bufferBytes(4), 4096u);
}

TEST(PlanUnitLayout, UnevenCountsGiveTheFirstUnitsOneExtraElement) {
  UnitLayout layout(CollectiveKind::AllReduce, 4, 4, 10, DType::F64);  // 3,3,2,2
  EXPECT_EQ(layout.elements(0, 1), 3u);
  EXPECT_EQ(layout.elements(1, 1), 3u);
  EXPECT_EQ(layout.elements(2, 1), 2u);
  EXPECT_EQ(layout.elements(3, 1), 2u);
  EXPECT_EQ(layout.byteRange(2, 2), (ByteRange{6 * 8, 4 * 8}));
  for (size_t count : {size_t(0), size_t(1), size_t(3), size_t(7), size_t(8), size_t(9),
                       size_t(1000003)})
    for (uint32_t units : {1u, 2u, 3u, 8u, 64u}) {
      SCOPED_TRACE("count " + std::to_string(count) + " units " + std::to_string(units));
      expectTiles(UnitLayout(CollectiveKind::AllReduce, 2, units, count, DType::U8), units, count);
    }
}

TEST(PlanUnitLayout, ZeroAndTinyCounts) {
  UnitLayout zero(CollectiveKind::AllReduce, 8, 8, 0, DType::F32);
  for (uint32_t u = 0; u <= 8; ++u) EXPECT_EQ(zero.elementOffset(u), 0u);
  EXPECT_EQ(zero.bufferBytes(8), 0u);
  UnitLayout one(CollectiveKind::AllReduce, 8, 8, 1, DType::F32);
  EXPECT_EQ(one.byteRange(0, 1), (ByteRange{0, 4}));
  EXPECT_EQ(one.byteRange(1, 7), (ByteRange{4, 0}));
  UnitLayout three(CollectiveKind::AllReduce, 8, 8, 3, DType::F32);  // fewer elements than units
  EXPECT_EQ(three.elements(0, 3), 3u);
  EXPECT_EQ(three.elements(3, 5), 0u);
}

TEST(PlanUnitLayout, PerRankBlocks) {
  // allgather on 3 ranks, 2 units per block, 5 elements per rank: blocks of 3+2 elements.
  UnitLayout layout(CollectiveKind::AllGather, 3, 6, 5, DType::I32);
  EXPECT_EQ(layout.unitsPerBlock(), 2u);
  EXPECT_EQ(layout.elementOffset(2), 5u);   // block 1 starts at `count`
  EXPECT_EQ(layout.elementOffset(3), 8u);
  EXPECT_EQ(layout.elementOffset(6), 15u);  // whole M
  EXPECT_EQ(layout.byteRange(4, 2), (ByteRange{40, 20}));
  // A rank's 1-block input buffer is laid out like one block of M.
  EXPECT_EQ(layout.bufferBytes(2), 20u);
  // Same phase => same size, whatever the block: what validatePlan's phase rule relies on.
  for (uint32_t u = 0; u < 6; ++u)
    EXPECT_EQ(layout.elements(u, 1), layout.elements(u % 2, 1)) << u;
}

TEST(PlanUnitLayout, BufferBytesFollowThePlan) {
  Plan plan;
  plan.collective = CollectiveKind::ReduceScatter;
  plan.ranks = 4;
  plan.units = 8;
  plan.scratchUnits = 3;
  UnitLayout layout(plan, 7, DType::F16);  // per-block 7 elements in units of 4 and 3
  EXPECT_EQ(layout.bufferBytes(bufferUnits(plan, BufferKind::In, 0)), 4 * 7 * 2u);
  EXPECT_EQ(layout.bufferBytes(bufferUnits(plan, BufferKind::Out, 0)), 7 * 2u);
  EXPECT_EQ(layout.bufferBytes(plan.scratchUnits), (7 + 4) * 2u);
}

TEST(PlanUnitLayout, DeterministicAcrossCalls) {
  UnitLayout a(CollectiveKind::AllToAll, 5, 15, 1234567, DType::BF16);
  UnitLayout b(CollectiveKind::AllToAll, 5, 15, 1234567, DType::BF16);
  for (uint32_t u = 0; u < 15; ++u)
    for (uint32_t len = 1; u + len <= 15; ++len) EXPECT_EQ(a.byteRange(u, len), b.byteRange(u, len));
}

TEST(PlanUnitLayout, BarrierHasNoBytesAndBadUnitsThrow) {
  UnitLayout barrier(CollectiveKind::Barrier, 4, 0, 100, DType::F32);
  EXPECT_EQ(barrier.byteRange(0, 0), (ByteRange{0, 0}));
  EXPECT_THROW(UnitLayout(CollectiveKind::AllGather, 4, 6, 10, DType::F32), std::invalid_argument);
  EXPECT_THROW(UnitLayout(CollectiveKind::AllReduce, 4, 0, 10, DType::F32), std::invalid_argument);
  EXPECT_THROW(UnitLayout(CollectiveKind::AllReduce, 0, 4, 10, DType::F32), std::invalid_argument);
}
