// Edited bundles: ring plans in a bundle, and the five edits a rank's own load cannot see.
#include "EditedBundles.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/DefaultPlans.h"

#include <fstream>
#include <unistd.h>

namespace collplan::test {
namespace {

using nlohmann::json;

Bucket wholeRange(Plan plan) {
  Bucket b;
  b.minBytes = 0;
  b.maxBytes = UINT64_MAX;
  b.winner.algorithm = plan.algorithm;
  b.plan = std::move(plan);
  return b;
}

/// Rank 0's ops in table `table` (0: allreduce, 1: allgather).
json &opsOfRank0(json &bundle, int table) {
  return bundle["tables"][size_t(table)]["buckets"][0]["plan"]["programs"][0]["channels"][0]
               ["ops"];
}

/// The first op of `ops` that has member `key` (and a receive, when `withRecv`).
json &firstWith(json &ops, const char *key, bool withRecv = false) {
  for (json &op : ops)
    if (op.contains(key) && (!withRecv || op.contains("recv"))) return op;
  throw std::logic_error(std::string("no op with ") + key);
}

void countTwice(json &bundle) {
  json &op = firstWith(opsOfRank0(bundle, 0), "src", /*withRecv=*/true);
  op["src"].push_back(op["src"][0]);
}

void readUnwrittenScratch(json &bundle) {
  json &plan = bundle["tables"][0]["buckets"][0]["plan"];
  plan["scratch_units"] = plan["units"];
  json &src = firstWith(opsOfRank0(bundle, 0), "src")["src"][0];
  src = "tmp" + src.get<std::string>().substr(2);
}

void sendToWrongPeer(json &bundle) {
  const int ranks = bundle["ranks"];
  json &send = firstWith(opsOfRank0(bundle, 1), "send")["send"][0];
  send = send.get<int>() % (ranks - 1) + 1;  // another peer, never rank 0 itself
}

void swapBlocks(json &bundle) {
  json &ops = opsOfRank0(bundle, 1);
  std::vector<json *> writers;
  for (json &op : ops)
    if (op.contains("dst")) writers.push_back(&op);
  std::swap((*writers.front())["dst"], (*writers.back())["dst"]);
}

void dropReceive(json &bundle) {
  json &ops = opsOfRank0(bundle, 0);
  ops.erase(ops.size() - 1);
}

}  // namespace

json ringBundle(int ranks, const std::string &backend, const std::string &fingerprint) {
  Bundle bundle;
  bundle.backend = backend;
  bundle.ranks = ranks;
  bundle.topologyFingerprint = fingerprint;
  bundle.toolVersion = "test";
  BucketTable reduce, gather;
  reduce.collective = CollectiveKind::AllReduce;
  reduce.op = ReduceOp::Sum;
  reduce.buckets.push_back(wholeRange(ringAllReducePlan(ranks, ReduceOp::Sum)));
  gather.collective = CollectiveKind::AllGather;
  gather.buckets.push_back(wholeRange(ringAllGatherPlan(ranks)));
  bundle.tables = {reduce, gather};
  return bundleToJson(bundle);
}

const std::vector<BundleEdit> &unprovableEdits() {
  static const std::vector<BundleEdit> edits = {
      {"reduction counted twice", 2, "2 times", countTwice},
      {"unwritten scratch read", 2, "before anything wrote it", readUnwrittenScratch},
      {"wrong peer", 3, "unmatched", sendToWrongPeer},
      {"swapped blocks", 2, "instead of", swapBlocks},
      {"dropped receive", 2, "unmatched send", dropReceive},
  };
  return edits;
}

std::string writeBundle(const json &bundle, const std::string &tag) {
  const std::string path = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") +
                           "/collplan-" + tag + "-" + std::to_string(getpid()) + ".bundle.json";
  std::ofstream(path) << bundle.dump();
  return path;
}

}  // namespace collplan::test
