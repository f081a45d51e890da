// Bundles as MSCCL XML and MSCCL++ JSON directories: one file per bucket, ranges kept, skips.
#include "runtime/interop/BundleExport.h"
#include "runtime/interop/MscclXml.h"
#include "runtime/interop/MscclppJson.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/PlanError.h"

#include "InteropTestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace collplan {
namespace {

namespace fs = std::filesystem;
using interoptest::messagesPerPair;

Bucket bucketOf(uint64_t minBytes, uint64_t maxBytes, Plan plan) {
  Bucket bucket;
  bucket.minBytes = minBytes;
  bucket.maxBytes = maxBytes;
  bucket.winner.algorithm = plan.algorithm;
  bucket.plan = std::move(plan);
  return bucket;
}

/// A 4-rank bundle: allreduce in three buckets (recursive doubling, two-shot, ring), and a
/// broadcast, which neither format can say (it has a root).
Bundle fourRankBundle() {
  Bundle bundle;
  bundle.topologyFingerprint = "test";
  bundle.backend = "cpu-threads";
  bundle.ranks = 4;
  BucketTable allreduce;
  allreduce.op = ReduceOp::Sum;
  allreduce.buckets = {bucketOf(0, 4095, recursiveDoublingAllReducePlan(4, ReduceOp::Sum)),
                       bucketOf(4096, 65535, twoShotAllReducePlan(4, ReduceOp::Sum)),
                       bucketOf(65536, UINT64_MAX, ringAllReducePlan(4, ReduceOp::Sum))};
  BucketTable broadcast;
  broadcast.collective = CollectiveKind::Broadcast;
  broadcast.buckets = {bucketOf(0, UINT64_MAX, binomialBroadcastPlan(4, 0))};
  bundle.tables = {allreduce, broadcast};
  return bundle;
}

/// A fresh, empty directory under the test temporary directory.
std::string freshDirectory(const std::string &name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("collplan-bundle-export-" + name);
  fs::remove_all(dir);
  return dir.string();
}

ImportedPlan importFile(const std::string &path, InteropFormat format) {
  const std::string text = interoptest::readFile(path);
  return format == InteropFormat::MscclXml ? importMscclXml(text, path)
                                           : importMscclppJson(text, path);
}

void expectRoundTrip(InteropFormat format) {
  SCOPED_TRACE(std::string(toString(format)));
  const Bundle bundle = fourRankBundle();
  const std::string dir = freshDirectory(std::string(toString(format)));
  const BundleExport exported = exportBundle(bundle, format, dir);
  ASSERT_EQ(exported.buckets.size(), 4u);
  ASSERT_EQ(exported.written(), 3u);
  const std::string ext = format == InteropFormat::MscclXml ? ".xml" : ".mscclpp.json";
  const std::string names[] = {"allreduce-n4-0-4095", "allreduce-n4-4096-65535",
                               "allreduce-n4-65536-max"};
  for (size_t b = 0; b < 3; ++b) {
    const ExportedBucket &out = exported.buckets[b];
    const Bucket &bucket = bundle.tables[0].buckets[b];
    EXPECT_EQ(out.bucket, "tables[0].buckets[" + std::to_string(b) + "]");
    EXPECT_EQ(out.file, (fs::path(dir) / (names[b] + ext)).string());
    // The import proves the plan; the range and the messages come back.
    const ImportedPlan back = importFile(out.file, format);
    EXPECT_EQ(back.sizes, (SizeRange{bucket.minBytes, bucket.maxBytes})) << out.file;
    EXPECT_EQ(back.plan.ranks, 4);
    EXPECT_EQ(messagesPerPair(back.plan), messagesPerPair(bucket.plan)) << out.file;
  }
  EXPECT_EQ(size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator())), 3u);
}

TEST(BundleExport, EveryBucketIsAFileWithItsRange) {
  expectRoundTrip(InteropFormat::MscclXml);
  expectRoundTrip(InteropFormat::MscclppJson);
}

TEST(BundleExport, RangesAreTheFormatsOwnFields) {
  const std::string dir = freshDirectory("fields");
  exportBundle(fourRankBundle(), InteropFormat::MscclXml, dir);
  const std::string xml = interoptest::readFile(dir + "/allreduce-n4-4096-65535.xml");
  EXPECT_NE(xml.find("minBytes=\"4096\" maxBytes=\"65535\""), std::string::npos) << xml;
  // No upper bound: the largest int64, which the executor reads as a bound no size reaches.
  const std::string last = interoptest::readFile(dir + "/allreduce-n4-65536-max.xml");
  EXPECT_NE(last.find("minBytes=\"65536\" maxBytes=\"9223372036854775807\""), std::string::npos);
  exportBundle(fourRankBundle(), InteropFormat::MscclppJson, dir);
  const nlohmann::json doc = nlohmann::json::parse(
      interoptest::readFile(dir + "/allreduce-n4-65536-max.mscclpp.json"));
  EXPECT_EQ(doc["min_message_size"], 65536u);
  EXPECT_EQ(doc["max_message_size"], UINT64_MAX);
}

TEST(BundleExport, UnexportableBucketsAreSkippedWithTheirReason) {
  Bundle bundle = fourRankBundle();
  BucketTable halves = bundle.tables[0]; // a second allreduce table (another dtype)
  halves.dtype = DType::F16;
  bundle.tables.push_back(halves);
  const BundleExport exported =
      exportBundle(bundle, InteropFormat::MscclXml, freshDirectory("skips"));
  ASSERT_EQ(exported.buckets.size(), 7u);
  EXPECT_EQ(exported.written(), 3u);
  EXPECT_EQ(describe(exported.buckets[3]),
            "skipped tables[1].buckets[0] (broadcast, 0..max bytes): MSCCL export: broadcast is "
            "rooted, and MSCCL XML has no root: the executor would run the algorithm for every "
            "root");
  EXPECT_EQ(describe(exported.buckets[4]),
            "skipped tables[2].buckets[0] (allreduce, 0..4095 bytes): an earlier table of "
            "allreduce was exported; the executor chooses by collective, rank count and size, "
            "not by dtype or operation");
}

TEST(BundleExport, OverTheExecutorsLimitsIsSkippedNamingTheBucket) {
  Bundle bundle;
  bundle.ranks = 8;
  BucketTable table;
  table.op = ReduceOp::Sum;
  table.buckets = {bucketOf(0, 1023, recursiveDoublingAllReducePlan(8, ReduceOp::Sum)),
                   bucketOf(1024, UINT64_MAX, ringAllReducePlan(8, ReduceOp::Sum))};
  bundle.tables = {table};
  const BundleExport exported =
      exportBundle(bundle, InteropFormat::MscclppJson, freshDirectory("limits"));
  ASSERT_EQ(exported.buckets.size(), 2u);
  EXPECT_FALSE(exported.buckets[0].file.empty());
  EXPECT_EQ(describe(exported.buckets[1]),
            "skipped tables[0].buckets[1] (allreduce, 1024..max bytes): MSCCL++ export: rank 0 "
            "channel 0 needs 97 ops; a thread block holds 64 (MAX_OPERATION)");
}

TEST(BundleExport, UnwritableDirectoryFailsNamingIt) {
  const std::string dir = freshDirectory("unwritable");
  fs::create_directories(dir);
  std::ofstream(dir + "/file") << "not a directory";
  const std::string target = dir + "/file/out";
  try {
    exportBundle(fourRankBundle(), InteropFormat::MscclXml, target);
    ADD_FAILURE() << "wrote into " << target;
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(std::string(e.what()), target + ": cannot create the directory: Not a directory");
  }
  try {
    exportBundle(fourRankBundle(), InteropFormat::MscclXml, dir + "/file");
    ADD_FAILURE() << "wrote into a file";
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(std::string(e.what()), dir + "/file: exists and is not a directory");
  }
}

TEST(BundleExport, FileNamesSayCollectiveRanksAndRange) {
  EXPECT_EQ(bucketFileName(CollectiveKind::ReduceScatter, 16, 0, 65535, InteropFormat::MscclXml),
            "reduce_scatter-n16-0-65535.xml");
  EXPECT_EQ(bucketFileName(CollectiveKind::AllGather, 2, 1, UINT64_MAX,
                           InteropFormat::MscclppJson),
            "allgather-n2-1-max.mscclpp.json");
  EXPECT_EQ(parseInteropFormat("mscclpp-json"), InteropFormat::MscclppJson);
  EXPECT_EQ(parseInteropFormat("xml"), std::nullopt);
}

TEST(BundleExport, ImportersReadTheRangeBack) {
  MscclExportOptions options;
  options.minBytes = 10;
  options.maxBytes = 20;
  const Plan ring = ringAllGatherPlan(2);
  EXPECT_EQ(importMscclXml(planToMscclXml(ring, options), "t.xml").sizes, (SizeRange{10, 20}));
  // The executor reads maxBytes 0 as no bound.
  std::string xml = planToMscclXml(ring, options);
  xml.replace(xml.find("maxBytes=\"20\""), 13, "maxBytes=\"0\"");
  EXPECT_EQ(importMscclXml(xml, "t.xml").sizes, (SizeRange{10, UINT64_MAX}));
  xml.replace(xml.find("minBytes=\"10\""), 13, "minBytes=\"30\"");
  xml.replace(xml.find("maxBytes=\"0\""), 12, "maxBytes=\"20\"");
  try {
    importMscclXml(xml, "t.xml");
    ADD_FAILURE() << "accepted an empty range";
  } catch (const PlanError &e) {
    EXPECT_EQ(std::string(e.what()), "t.xml:1: <algo>: minBytes 30 is above maxBytes 20: the "
                                     "executor never chooses this algorithm");
  }
  MscclppExportOptions pp;
  pp.minMessageSize = 7;
  pp.maxMessageSize = 9;
  EXPECT_EQ(importMscclppJson(planToMscclppJson(ring, pp), "t.json").sizes, (SizeRange{7, 9}));
  pp.minMessageSize = 10;
  try {
    importMscclppJson(planToMscclppJson(ring, pp), "t.json");
    ADD_FAILURE() << "accepted an empty range";
  } catch (const PlanError &e) {
    EXPECT_EQ(std::string(e.what()), "t.json: min_message_size: 10 is above max_message_size 9: "
                                     "no call selects this plan");
  }
}

} // namespace
} // namespace collplan
