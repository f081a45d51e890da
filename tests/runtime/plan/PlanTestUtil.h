// Plan builders and error-assertion helpers shared by the runtime/plan tests.
#pragma once

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanJson.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace collplan::testing {

BufRef ref(BufferKind buf, uint32_t begin, uint32_t end);
BufRef in(uint32_t begin, uint32_t end);
BufRef out(uint32_t begin, uint32_t end);
BufRef tmp(uint32_t begin, uint32_t end);
/// An op of `kind` with the given operands, dsts, peers and step (no `after`).
PlanOp makeOp(OpKind kind, std::vector<BufRef> srcs, std::optional<int32_t> recv,
              std::vector<BufRef> dsts, std::vector<int32_t> sends, int step = -1);

/// Ring allreduce on `ranks` ranks with units = ranks, fused ops, every rank sending before it
/// receives: deadlock-free. Transfer id = step * ranks + sender.
Plan ringAllReducePlan(int ranks);
/// Load options that check structure only: for plans that are valid but compute nothing
/// meaningful (everyOpKindPlan, edited documents).
inline PlanLoadOptions structureOnly() {
  PlanLoadOptions options;
  options.verify = false;
  return options;
}

/// A 2-rank allreduce that uses every op kind once or more (valid, not numerically meaningful).
Plan everyOpKindPlan();
/// Broadcast from `root` over 2 ranks: the root sends in[0:1], the other rank receives into out.
Plan broadcastPlan2(int root);
/// Allgather over 2 ranks, units 2: copy own block, exchange the other.
Plan allGatherPlan2();

/// A bundle of `ranks` ranks with one allreduce/f32/sum table of buckets split at `splits`
/// (each a bucket's first byte), every bucket holding ringAllReducePlan(ranks).
Bundle ringBundle(int ranks, const std::vector<uint64_t> &splits);

/// Runs `load` and asserts it throws PlanError whose field equals `field` and whose reason
/// contains `reason`; the message must also contain the origin, the field and the reason.
void expectPlanError(const std::function<void()> &load, const std::string &field,
                     const std::string &reason);

/// Mutates the JSON of `plan` with `edit`, loads it as "test.plan.json", expects the error.
void expectPlanJsonError(const Plan &plan, const std::function<void(nlohmann::json &)> &edit,
                         const std::string &field, const std::string &reason);

/// Same for bundles, loaded as "test.bundle.json" with `expectations`.
void expectBundleJsonError(const Bundle &bundle, const std::function<void(nlohmann::json &)> &edit,
                           const std::string &field, const std::string &reason,
                           const BundleExpectations &expectations = {});

/// A fresh path under the build tree for files written by a test.
std::string scratchPath(const std::string &name);
/// A file of tests/runtime/plan/data.
std::string dataPath(const std::string &name);

}  // namespace collplan::testing
