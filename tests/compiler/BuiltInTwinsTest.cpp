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
/// Plain sends (no receive) from one rank to another in consecutive ops of its program count as
/// one message (the textbook's one message per peer per step): the compiler splits a message
/// whose parts fold into different places (a fused receive-reduce-send beside a
/// receive-reduce); the runtime's plan may not.
std::vector<Message> messagesOf(const Plan &plan) {
  std::vector<PlanTransfer> transfers = planTransfers(plan);
  std::sort(transfers.begin(), transfers.end(), [](const PlanTransfer &a, const PlanTransfer &b) {
    return std::tie(a.sender, a.channel, a.send.op) < std::tie(b.sender, b.channel, b.send.op);
  });
  std::vector<std::tuple<int, int, uint64_t>> merged;  // sender, receiver, units
  const PlanTransfer *previous = nullptr;
  for (const PlanTransfer &t : transfers) {
    const std::vector<PlanOp> &ops = plan.programs[size_t(t.sender)].channels[t.channel].ops;
    const uint64_t length = ops[t.send.op].length();
    const bool continues = previous && previous->sender == t.sender &&
                           previous->channel == t.channel && previous->receiver == t.receiver &&
                           previous->send.op + 1 == t.send.op && !ops[t.send.op].recv &&
                           !ops[previous->send.op].recv;
    if (continues)
      std::get<2>(merged.back()) += length;
    else
      merged.emplace_back(t.sender, t.receiver, length);
    previous = &t;
  }
  std::vector<Message> out;
  const uint64_t units = std::max<uint64_t>(plan.units, 1);
  for (const auto &[sender, receiver, length] : merged) {
    const uint64_t g = std::max<uint64_t>(std::gcd(length, units), 1);
    out.emplace_back(sender, receiver, length / g, units / g);
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
