// The lower bound's promise on the presets and on irregular machines (a DGX-1 cube-mesh, a PCIe
// tree with asymmetric uplinks, oversubscribed NICs, a torus with a failed link, a random
// graph): every variant plan-tune compiles for the topology
// (every registered algorithm × its tuning axes × slices, and the runtime's built-in plans),
// simulated at 8 B and 256 MiB, takes at least the bound (runtime/sim/LowerBound.h) — with
// memory and, at 256 MiB, with links alone. Prints the best simulated time beside the bound,
// and at 256 MiB the best of the hand-written families (every algorithm but synth).
#include "runtime/sim/LowerBound.h"
#include "runtime/sim/SimError.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Resolver.h"
#include "tuner/Variants.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace collplan;

namespace {

constexpr uint64_t kSmall = 8, kLarge = uint64_t(256) << 20;

const std::vector<CollectiveKind> &kinds() {
  static const std::vector<CollectiveKind> list = {
      CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce,
      CollectiveKind::Broadcast, CollectiveKind::AllToAll,      CollectiveKind::Reduce,
      CollectiveKind::Gather,    CollectiveKind::Scatter};
  return list;
}

/// What plan-tune measures for `kind` on `topo` (root 0, sum): every variant it enumerates
/// and compiles, the runtime's built-in plans among them. trn2 (64 ranks) takes plan-tune's
/// --quick axes, so the test stays under a minute.
std::vector<tune::CompiledVariant> variantsFor(const Topology &topo, CollectiveKind kind,
                                               bool quick) {
  CollectiveSpec spec;
  spec.kind = kind;
  spec.ranks = topo.numRanks();
  if (needsReduceOp(kind)) spec.op = ReduceOp::Sum;
  return tune::compileVariants(spec, tune::enumerateVariants(spec, &topo, {}, quick)).compiled;
}

struct NamedPlan {
  std::string label;
  const Plan &plan;
};

struct Best {
  double us = std::numeric_limits<double>::infinity();
  std::string label;
};

class BoundNotBeaten : public ::testing::TestWithParam<std::string> {};

/// A preset, or a file of tests/data/topologies (a name ending in .json).
std::string topologySpec(const std::string &name) {
  if (name.size() < 5 || name.substr(name.size() - 5) != ".json") return name;
  return std::string(COLLPLAN_SOURCE_DIR) + "/tests/data/topologies/" + name;
}

TEST_P(BoundNotBeaten, ByAnyBuiltInAlgorithm) {
  const Topology topo = resolveTopology(topologySpec(GetParam()));
  int simulated = 0;
  for (CollectiveKind kind : kinds()) {
    const CollectiveBound bound = collectiveBound(topo, kind);
    BoundOptions linksOnly;
    linksOnly.memory = false;
    const CollectiveBound links = collectiveBound(topo, kind, linksOnly);
    Best small, large, largeFamily;  // largeFamily: the best that is not synth
    for (const tune::CompiledVariant &v : variantsFor(topo, kind, topo.numRanks() > 32)) {
      const NamedPlan p{v.variant.label, v.plan};
      const std::string where = p.label + " " + std::string(toString(kind)) + " on " + GetParam();
      try {
        const double tSmall = simulateTimeUs(p.plan, topo, kSmall);
        const double tLarge = simulateTimeUs(p.plan, topo, kLarge);
        const double tLinks = simulateTimeUs(p.plan, topo, kLarge, SimOptions{true, false});
        EXPECT_GE(tSmall, bound.timeUs(kSmall) * (1 - 1e-9)) << where << " at 8 B";
        EXPECT_GE(tLarge, bound.timeUs(kLarge) * (1 - 1e-9)) << where << " at 256 MiB";
        EXPECT_GE(tLinks, links.timeUs(kLarge) * (1 - 1e-9)) << where << " at 256 MiB, links only";
        if (tSmall < small.us) small = {tSmall, p.label};
        if (tLarge < large.us) large = {tLarge, p.label};
        const bool synthesised = p.label.rfind("synth", 0) == 0;
        if (!synthesised && tLarge < largeFamily.us) largeFamily = {tLarge, p.label};
        ++simulated;
      } catch (const SimError &) {
        // A plan the topology cannot run (e.g. duplication on pcie-7): the tuner skips it too.
      }
    }
    std::printf("%-14s %-15s 8 B: bound %9.3f us, best %9.3f us (%-28s) %5.1f%% | 256 MiB: bound "
                "%10.1f us (%s), best %10.1f us (%-28s) %5.1f%%, best family %5.1f%% (%s)\n",
                GetParam().c_str(), std::string(toString(kind)).c_str(), bound.timeUs(kSmall),
                small.us, small.label.c_str(), 100 * bound.timeUs(kSmall) / small.us,
                bound.timeUs(kLarge), std::string(bound.limit(kLarge)).c_str(), large.us,
                large.label.c_str(), 100 * bound.timeUs(kLarge) / large.us,
                100 * bound.timeUs(kLarge) / largeFamily.us, largeFamily.label.c_str());
  }
  // The sweep cannot silently test nothing.
  EXPECT_GT(simulated, 40) << GetParam();
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Presets, BoundNotBeaten,
                         ::testing::Values("trn2", "nvswitch-h100", "pcie-7", "cluster:2"),
                         testName);

// Machines none of the families was written for (tests/data/topologies/generate.py).
INSTANTIATE_TEST_SUITE_P(Irregular, BoundNotBeaten,
                         ::testing::Values("dgx1-hybrid-cube-mesh.json",
                                           "pcie-tree-asymmetric.json",
                                           "fattree-2node-oversubscribed.json",
                                           "torus-4x4-failed-link.json", "random-16.json"),
                         testName);

}  // namespace
