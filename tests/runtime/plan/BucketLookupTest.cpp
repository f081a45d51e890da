// BucketTable::lookup at bucket edges (0, boundaries, UINT64_MAX) and against a linear scan.
#include "PlanTestUtil.h"

#include <random>

using namespace collplan;
using namespace collplan::testing;

namespace {

size_t indexOf(const BucketTable &table, const Bucket &bucket) {
  return size_t(&bucket - table.buckets.data());
}

}  // namespace

TEST(PlanBucketLookup, EdgesOfEveryBucket) {
  Bundle bundle = ringBundle(2, {4096, 65536, uint64_t(1) << 40});
  const BucketTable &table = bundle.tables[0];
  EXPECT_EQ(indexOf(table, table.lookup(0)), 0u);
  EXPECT_EQ(indexOf(table, table.lookup(4095)), 0u);
  EXPECT_EQ(indexOf(table, table.lookup(4096)), 1u);
  EXPECT_EQ(indexOf(table, table.lookup(65535)), 1u);
  EXPECT_EQ(indexOf(table, table.lookup(65536)), 2u);
  EXPECT_EQ(indexOf(table, table.lookup((uint64_t(1) << 40) - 1)), 2u);
  EXPECT_EQ(indexOf(table, table.lookup(uint64_t(1) << 40)), 3u);
  EXPECT_EQ(indexOf(table, table.lookup(UINT64_MAX)), 3u);
  EXPECT_EQ(indexOf(table, table.lookup(UINT64_MAX - 1)), 3u);
}

TEST(PlanBucketLookup, SingleBucketServesEverySize) {
  Bundle bundle = ringBundle(2, {});
  const BucketTable &table = bundle.tables[0];
  EXPECT_EQ(&table.lookup(0), &table.buckets[0]);
  EXPECT_EQ(&table.lookup(12345), &table.buckets[0]);
  EXPECT_EQ(&table.lookup(UINT64_MAX), &table.buckets[0]);
}

TEST(PlanBucketLookup, SingleByteBucketsAndLastByte) {
  Bundle bundle = ringBundle(2, {1, 2, UINT64_MAX});  // [0,0] [1,1] [2,MAX-1] [MAX,MAX]
  const BucketTable &table = bundle.tables[0];
  validateBundle(bundle, "edges");
  EXPECT_EQ(indexOf(table, table.lookup(0)), 0u);
  EXPECT_EQ(indexOf(table, table.lookup(1)), 1u);
  EXPECT_EQ(indexOf(table, table.lookup(2)), 2u);
  EXPECT_EQ(indexOf(table, table.lookup(UINT64_MAX - 1)), 2u);
  EXPECT_EQ(indexOf(table, table.lookup(UINT64_MAX)), 3u);
}

TEST(PlanBucketLookup, AgreesWithALinearScan) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> splits;
  uint64_t at = 0;
  for (int i = 0; i < 40; ++i) splits.push_back(at += 1 + rng() % 100000);
  Bundle bundle = ringBundle(1, splits);
  const BucketTable &table = bundle.tables[0];
  validateBundle(bundle, "random");
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bytes = i % 2 ? rng() : rng() % (at + 1000);
    const Bucket &found = table.lookup(bytes);
    EXPECT_LE(found.minBytes, bytes);
    EXPECT_GE(found.maxBytes, bytes);
  }
}

TEST(PlanBucketLookup, EmptyTableThrowsInsteadOfCrashing) {
  BucketTable table;
  EXPECT_THROW(table.lookup(0), std::out_of_range);
}
