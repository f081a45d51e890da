// Each of the runtime's built-in plans is the plan its compiler twin (the registered algorithm
// of the same name) compiles: the same messages between the same ranks, of the same share of
// the collective, for N = 2..16 and every root the check tries.
#include "compiler/export/PlanCompiler.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/Transfers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace collplan {
namespace {

/// One message: sender, receiver and its length as a reduced fraction of the plan's units.
using Message = std::tuple<int, int, uint64_t, uint64_t>;

/// The plan's messages, sorted: what two plans must share to move the same data the same way.
std::vector<Message> messagesOf(const Plan &plan) {
  std::vector<Message> out;
  for (const PlanTransfer &t : planTransfers(plan)) {
    const PlanOp &send = plan.programs[size_t(t.sender)]
                             .channels[t.channel]
                             .ops[t.send.op];
    const uint64_t length = send.length(), units = std::max<uint64_t>(plan.units, 1);
    const uint64_t g = std::max<uint64_t>(std::gcd(length, units), 1);
    out.emplace_back(t.sender, t.receiver, length / g, units / g);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe(const std::vector<Message> &messages) {
  std::string text;
  for (const auto &[from, to, num, den] : messages)
    text += " " + std::to_string(from) + "->" + std::to_string(to) + " (" + std::to_string(num) +
            "/" + std::to_string(den) + ")";
  return text;
}

TEST(BuiltInTwins, EachBuiltInPlanIsItsCompilerTwinsPlan) {
  for (const BuiltInPlan &builtIn : builtInPlans()) {
    for (CollectiveKind kind : builtIn.kinds) {
      for (int ranks = 2; ranks <= 16; ++ranks) {
        const std::vector<int> roots =
            needsRoot(kind) ? std::vector<int>{0, ranks / 2, ranks - 1} : std::vector<int>{0};
        for (int root : roots) {
          SCOPED_TRACE(std::string(builtIn.name) + " " + std::string(toString(kind)) + " on " +
                       std::to_string(ranks) + " ranks, root " + std::to_string(root));
          CollectiveSpec spec;
          spec.kind = kind;
          spec.ranks = ranks;
          spec.root = root;
          if (needsReduceOp(kind)) spec.op = ReduceOp::Sum;
          CompileOptions options;
          options.algorithm = std::string(builtIn.name);
          std::string error;
          auto compiled = compileCollective(spec, options, error);
          ASSERT_TRUE(mlir::succeeded(compiled)) << error;
          EXPECT_EQ(compiled->plan.algorithm, builtIn.name);
          const Plan made = builtIn.make(kind, ranks, ReduceOp::Sum, root, -1);
          EXPECT_EQ(made.algorithm, builtIn.name);
          const std::vector<Message> want = messagesOf(compiled->plan), got = messagesOf(made);
          EXPECT_EQ(got, want) << "built-in:" << describe(got) << "\ncompiled:" << describe(want);
        }
      }
    }
  }
}

}  // namespace
}  // namespace collplan
