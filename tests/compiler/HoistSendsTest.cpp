// hoistSends in compiled plans: within each channel, a send that needs nothing received goes
// before every receive (a ring no longer runs as a chain), FIFOs agree at both ends, and a
// program that cannot be ordered is an error naming what is stuck.
#include "compiler/export/Conflicts.h"
#include "compiler/export/HoistSends.h"
#include "compiler/export/PlanCompiler.h"
#include "tests/compiler/ScheduleTestSupport.h"

#include <gtest/gtest.h>

using namespace collplan;

namespace {

mlir::FailureOr<CompiledPlan> compileWith(CollectiveKind kind, int ranks,
                                          const std::string &algorithm, int slices,
                                          std::string &error) {
  const CollectiveSpec spec = collplan::testing::summingSpec(kind, ranks);
  CompileOptions options;
  options.algorithm = algorithm;
  options.slices = slices;
  return compileCollective(spec, options, error);
}

Plan compile(CollectiveKind kind, int ranks, const std::string &algorithm, int slices = 1) {
  std::string error;
  auto compiled = compileWith(kind, ranks, algorithm, slices, error);
  EXPECT_TRUE(mlir::succeeded(compiled)) << error;
  return mlir::succeeded(compiled) ? compiled->plan : Plan{};
}

std::string kinds(const std::vector<PlanOp> &ops) {
  std::string s;
  for (const PlanOp &op : ops)
    s += std::string(s.empty() ? "" : " ") + (!op.sends.empty() && op.dsts.empty() && !op.recv
                                                  ? "send"
                                              : op.recv ? "recv"
                                                        : "local");
  return s;
}

/// Every rank sends its block before it copies that block into its own output: the peer starts
/// on the message while the rank copies.
TEST(HoistSends, TwoRankRingAllGatherSendsFirstOnBothRanks) {
  const Plan plan = compile(CollectiveKind::AllGather, 2, "ring");
  ASSERT_EQ(plan.programs.size(), 2u);
  EXPECT_EQ(kinds(plan.programs[0].channels.at(0).ops), "send local recv");
  EXPECT_EQ(kinds(plan.programs[1].channels.at(0).ops), "send local recv");
}

TEST(HoistSends, TheRootOfAFlatBroadcastSendsBeforeItCopiesItsOwnOutput) {
  const Plan plan = compile(CollectiveKind::Broadcast, 4, "flat");
  EXPECT_EQ(kinds(plan.programs[0].channels.at(0).ops), "send send send local");
}

/// The compiled 7-rank ring allgather used to receive and forward its upstream block before
/// sending its own on every rank but rank 0: a chain. Now every rank sends first.
TEST(HoistSends, SevenRankRingAllGatherIsARingNotAChain) {
  const Plan plan = compile(CollectiveKind::AllGather, 7, "ring");
  for (const RankProgram &program : plan.programs)
    EXPECT_EQ(kinds(program.channels.at(0).ops), "send local recv recv recv recv recv recv");
}

/// For every algorithm and collective: in each channel, every send-only instruction that
/// depends on no receive of its rank (through the buffer units it reads, in the layout the plan
/// runs in) comes before every receive of a later round (step) of that channel, unless
/// kChannelDepth sends to its peer come before it: no send waits for a receive it does not need
/// beyond the round the port model gives it.
TEST(HoistSends, IndependentSendsGoOutByTheirRoundForEveryAlgorithm) {
  int checked = 0;
  for (const AlgorithmInfo &algorithm : algorithms())
    for (CollectiveKind kind : algorithm.kinds)
      for (int ranks : {2, 3, 4, 5, 8})
        for (int slices : {1, 2}) {
          if (kind == CollectiveKind::Barrier && slices > 1) continue;
          std::string error;
          auto compiled = compileWith(kind, ranks, algorithm.name, slices, error);
          if (mlir::failed(compiled)) continue;  // parameters the algorithm rejects at this N
          const Plan &plan = compiled->plan;
          const int blocks = messageBlocks(kind, ranks);
          const int64_t unitsPerBlock = blocks > 0 ? int64_t(plan.units) / blocks : 0;
          for (int rank = 0; rank < ranks; ++rank) {
            const RankProgram &program = plan.programs[size_t(rank)];
            // The rank's ops in program order per channel, with what each depends on.
            std::vector<mlir::coll::Instruction> all;
            for (uint32_t c = 0; c < program.channels.size(); ++c)
              for (const PlanOp &op : program.channels[c].ops) {
                mlir::coll::Instruction i;
                static_cast<PlanOp &>(i) = op;
                i.channel = c;
                all.push_back(i);
              }
            // The layout the plan runs in: in aliased into out only when it is in-place safe.
            const UnitLayout layout{plan.inplaceSafe,
                                    inPlaceBlockShift(kind, 0, rank) * unitsPerBlock};
            const auto deps = instructionDependencies(all, layout);
            std::vector<bool> needsRecv(all.size(), false);
            for (size_t i = 0; i < all.size(); ++i) {
              needsRecv[i] = all[i].recv.has_value();
              for (uint32_t j : deps[i]) needsRecv[i] = needsRecv[i] || needsRecv[j];
            }
            size_t base = 0;
            for (uint32_t c = 0; c < program.channels.size(); ++c) {
              const auto &ops = program.channels[c].ops;
              int32_t latestRecvStep = -1;  // the latest round of a receive so far
              std::map<int32_t, int> sendsTo;
              for (size_t i = 0; i < ops.size(); ++i) {
                if (ops[i].recv) latestRecvStep = std::max(latestRecvStep, ops[i].step);
                for (int32_t q : ops[i].sends) ++sendsTo[q];
                const bool independentSend = !ops[i].sends.empty() && !needsRecv[base + i] &&
                                             all[base + i].srcs.size() + all[base + i].dsts.size() > 0;
                if (!independentSend || latestRecvStep <= ops[i].step) continue;
                bool throttled = false;
                for (int32_t q : ops[i].sends) throttled |= sendsTo[q] > int(kChannelDepth);
                EXPECT_TRUE(throttled) << algorithm.name << " " << toString(kind) << " N="
                                       << ranks << " slices " << slices << " rank " << rank
                                       << " channel " << c << " op " << i
                                       << ": a send that needs nothing received comes after a "
                                          "receive of a later round";
              }
              base += ops.size();
            }
          }
          ++checked;
        }
  EXPECT_GT(checked, 250);  // the sweep cannot silently test nothing
}

/// Deep pipelines put many messages in flight: a forwarding instruction whose send the port
/// model schedules rounds after its receive would fill the FIFO to a peer that reads it only
/// then (Rabenseifner with 8 slices sends 16 such messages before its halving partner reads
/// one). Every algorithm orders at 8 and 32 ranks with 8 slices.
TEST(HoistSends, EveryAlgorithmOrdersWithEightSlices) {
  int compiled = 0;
  for (const AlgorithmInfo &algorithm : algorithms())
    for (CollectiveKind kind : algorithm.kinds) {
      if (kind == CollectiveKind::Barrier) continue;
      for (int ranks : {8, 32}) {
        std::string error;
        if (mlir::succeeded(compileWith(kind, ranks, algorithm.name, 8, error))) {
          ++compiled;
          continue;
        }
        EXPECT_EQ(error.find("cannot be ordered"), std::string::npos)
            << algorithm.name << " " << toString(kind) << " N=" << ranks << ": " << error;
      }
    }
  EXPECT_GT(compiled, 40);
}

TEST(HoistSends, AProgramThatCannotBeOrderedIsAnError) {
  // Rank 1 must receive transfer 0 before transfer 1 (both write tmp[0:1]), so rank 0 must send
  // 0 first; but rank 0's send of 0 reads tmp[0:1] after a copy that must wait for its send of 1
  // (which reads tmp[0:1] first). With in-order matching nothing can go first.
  collplan::testing::IRFixture ir;
  auto module = ir.parse("coll.program @p allgather ranks 2 units 2 scratch 1 {\n"
                         "  coll.rank 0 {\n"
                         "    coll.send tmp[0:1] -> send 1 id 1\n"
                         "    coll.local_copy in[0:1] -> tmp[0:1]\n"
                         "    coll.send tmp[0:1] -> send 1 id 0\n"
                         "  }\n"
                         "  coll.rank 1 {\n"
                         "    coll.recv recv 0 id 0 -> tmp[0:1]\n"
                         "    coll.recv recv 0 id 1 -> tmp[0:1]\n"
                         "  }\n"
                         "}\n");
  ASSERT_TRUE(module);
  auto program = *module->getOps<mlir::coll::ProgramOp>().begin();
  EXPECT_TRUE(mlir::failed(hoistSends(program)));
  ASSERT_FALSE(ir.diagnostics().empty());
  EXPECT_NE(ir.diagnostics().back().find("cannot be ordered: its ranks deadlock"),
            std::string::npos)
      << ir.diagnostics().back();
  EXPECT_NE(ir.diagnostics().back().find("rank 0 has 3 instructions left; rank 1 has 2 "
                                         "instructions left (waits for transfer 0 from rank 0 "
                                         "on channel 0)"),
            std::string::npos)
      << ir.diagnostics().back();
}

}  // namespace
