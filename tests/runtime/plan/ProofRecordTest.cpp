// Proof records: SHA-256 against FIPS 180-4's examples, the record directory's trust checks,
// proving once per content, and a rank's load of a bundle that only a whole load can refuse.
#include "PlanTestUtil.h"

#include "runtime/core/Sha256.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/ProofRecord.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::testing;

namespace {

std::string freshDir() {
  char pattern[] = "/tmp/collplan-proof-test-XXXXXX";
  return mkdtemp(pattern);
}

/// Both implementations (the SHA extensions where the processor has them, and the portable
/// one) give the standard's digests, over every tail length.
TEST(Sha256, MatchesTheStandardsExamples) {
  std::string text;
  for (int n = 0; n < 300; ++n, text += char('a' + n % 26))
    EXPECT_EQ(sha256(text), sha256Portable(text)) << n << " bytes";
  const auto hex = [](const std::array<uint8_t, 32> &digest) {
    std::string out;
    for (uint8_t b : digest) out += "0123456789abcdef"[b >> 4], out += "0123456789abcdef"[b & 15];
    return out;
  };
  EXPECT_EQ(hex(sha256Portable("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Tails of 55 and 56 bytes: padding in one block, and in two.
  EXPECT_EQ(sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST(ProofRecords, ProveOncePerContentAndRecordIt) {
  const ProofRecords records(freshDir());
  ASSERT_EQ(records.unusable(), "");
  const std::string digest = sha256Hex("content");
  int proofs = 0;
  records.proveOnce(digest, [&] { ++proofs; }, std::chrono::seconds(5));
  records.proveOnce(digest, [&] { ++proofs; }, std::chrono::seconds(5));
  EXPECT_EQ(proofs, 1);
  EXPECT_TRUE(records.proven(digest));
  EXPECT_FALSE(records.proven(sha256Hex("other content")));
}

TEST(ProofRecords, AFailedProofIsNotRecorded) {
  const ProofRecords records(freshDir());
  const std::string digest = sha256Hex("unsound");
  EXPECT_THROW(records.proveOnce(digest, [] { throw PlanError("f", "", "unsound"); },
                                 std::chrono::seconds(5)),
               PlanError);
  EXPECT_FALSE(records.proven(digest));
  int proofs = 0;
  EXPECT_NO_THROW(records.proveOnce(digest, [&] { ++proofs; }, std::chrono::seconds(5)));
  EXPECT_EQ(proofs, 1);
}

/// Records are trusted only where no other user could have written them.
TEST(ProofRecords, ADirectoryOthersMayWriteIsNotTrusted) {
  const std::string dir = freshDir();
  const std::string digest = sha256Hex("content");
  ProofRecords(dir).proveOnce(digest, [] {}, std::chrono::seconds(5));
  ASSERT_TRUE(ProofRecords(dir).proven(digest));
  chmod(dir.c_str(), 0777);
  const ProofRecords shared(dir);
  EXPECT_EQ(shared.unusable(), "users other than its owner may write it");
  EXPECT_FALSE(shared.proven(digest));
  int proofs = 0;
  shared.proveOnce(digest, [&] { ++proofs; }, std::chrono::seconds(5));
  EXPECT_EQ(proofs, 1) << "an untrusted directory's record replaced the proof";
  chmod(dir.c_str(), 0700);
  const std::string record = dir + "/" + digest + ".r" + std::to_string(kProofRulesVersion);
  chmod(record.c_str(), 0666);
  EXPECT_FALSE(ProofRecords(dir).proven(digest));
}

TEST(ProofRecords, TheVariableMustNameAUsableDirectory) {
  setenv(kProofDirVariable, "relative/dir", 1);
  expectPlanError([] { ProofRecords::fromEnvironment(); }, "",
                        "must be an absolute directory path, got \"relative/dir\"");
  const std::string dir = freshDir();
  chmod(dir.c_str(), 0777);
  setenv(kProofDirVariable, dir.c_str(), 1);
  expectPlanError([] { ProofRecords::fromEnvironment(); }, "",
                        "users other than its owner may write it");
  unsetenv(kProofDirVariable);
}

/// A rank's own program of this bundle is valid, but rank 0 counts in[1] twice: only the
/// proof of the whole file sees it, and a rank's load runs it.
TEST(BundleForRank, IsRefusedWhenTheWholeFileIsUnsound) {
  Bundle bundle;
  bundle.backend = "cpu-shm";
  bundle.ranks = 2;
  bundle.topologyFingerprint = "f";
  BucketTable table;
  table.op = ReduceOp::Sum;
  Bucket bucket;
  bucket.maxBytes = UINT64_MAX;
  bucket.plan = ringAllReducePlan(2, ReduceOp::Sum);
  bucket.winner.algorithm = "ring";
  table.buckets.push_back(bucket);
  bundle.tables.push_back(table);
  nlohmann::json doc = bundleToJson(bundle);
  nlohmann::json &ops = doc["tables"][0]["buckets"][0]["plan"]["programs"][0]["channels"][0]["ops"];
  for (nlohmann::json &op : ops)
    if (op.contains("recv") && op.contains("src")) op["src"].push_back(op["src"][0]);
  const std::string path = freshDir() + "/edited.bundle.json";
  std::ofstream(path) << doc.dump();
  const ProofRecords records(freshDir());
  for (int rank : {1, 0})
    expectPlanError(
        [&] { loadBundleFileForRank(path, {}, rank, records, std::chrono::seconds(5)); },
        "tables[0].buckets[0].plan.programs[0].channels[0].ops[1]", "2 times");
}

}  // namespace
