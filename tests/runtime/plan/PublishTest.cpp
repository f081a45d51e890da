// PreparedProgram's publishing rule: a message is posted in place (the receiver reads the
// sender's memory) only from a range no op that may run later overwrites; otherwise it is
// staged, so a plan may reuse a range it sent from without waiting for the receiver.
#include "runtime/exec/PreparedProgram.h"
#include "runtime/plan/PlanVerify.h"
#include "PlanTestUtil.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace collplan {
namespace {

using testing::in;
using testing::makeOp;
using testing::out;
using testing::tmp;

/// A transport that only hands out connections: enough for PreparedProgram's analysis.
class ConnectionsOnly final : public Transport {
public:
  int rank() const override { return 0; }
  int ranks() const override { return 2; }
  const WaitPolicy &waitPolicy() const override { return policy_; }
  bool peersCanRead(BufferKind) const override { return true; }
  Connection connect(int, uint32_t, bool) override { return next_++; }
  void beginCall(const CallSignature &) override { unused(); }
  std::byte *staging(size_t) override { unused(); }
  bool canPost(Connection) override { unused(); }
  void post(Connection, const std::byte *, size_t) override { unused(); }
  bool arrived(Connection) override { unused(); }
  const std::byte *acquire(Connection, size_t) override { unused(); }
  void fetch(Connection, size_t, size_t, std::byte *) override { unused(); }
  void release(Connection) override { unused(); }
  void endCall() override { unused(); }
  std::string describe(Connection) const override { return "test"; }

private:
  [[noreturn]] static void unused() { throw std::logic_error("not used by the analysis"); }
  WaitPolicy policy_;
  Connection next_ = 0;
};

/// Allgather over 2 ranks through scratch: rank 0 parks its block in tmp[0], sends it, then
/// receives rank 1's block into the same tmp[0] (possibly before rank 1 has read the first
/// message) and copies both blocks out.
Plan scratchReusingAllGather() {
  Plan plan;
  plan.collective = CollectiveKind::AllGather;
  plan.ranks = 2;
  plan.algorithm = "scratch-reuse";
  plan.units = 2;
  plan.scratchUnits = 1;
  plan.programs.resize(2);
  plan.programs[0].channel(0) = {
      makeOp(OpKind::Copy, {in(0, 1)}, std::nullopt, {tmp(0, 1)}, {}),
      makeOp(OpKind::Send, {tmp(0, 1)}, std::nullopt, {}, {1}),
      makeOp(OpKind::Recv, {}, 1, {tmp(0, 1)}, {}),
      makeOp(OpKind::Copy, {tmp(0, 1)}, std::nullopt, {out(1, 2)}, {}),
      makeOp(OpKind::Dup, {in(0, 1)}, std::nullopt, {out(0, 1)}, {1})};
  plan.programs[1].channel(0) = {
      makeOp(OpKind::Send, {in(0, 1)}, std::nullopt, {}, {0}),
      makeOp(OpKind::Recv, {}, 0, {out(0, 1)}, {}),
      makeOp(OpKind::Recv, {}, 0, {out(0, 1)}, {}),
      makeOp(OpKind::Copy, {in(0, 1)}, std::nullopt, {out(1, 2)}, {})};
  return plan;
}

TEST(Publish, RangeOverwrittenLaterIsStagedOthersArePostedInPlace) {
  const Plan plan = scratchReusingAllGather();
  // Messages carry their op's value: the reuse of tmp[0] is correct.
  EXPECT_TRUE(verifyPlan(plan).ok()) << verifyPlan(plan).describe();
  ConnectionsOnly transport;
  const PreparedProgram program(plan, 0, transport);
  const auto &ops = program.ops();
  ASSERT_EQ(ops.size(), 5u);
  const PreparedProgram::Resolved &call = program.resolve(1 << 20, DType::F32, AliasMode::Separate);
  EXPECT_NE(call.stagingOffset[1], PreparedProgram::kNotStaged)
      << "tmp[0] is overwritten by the recv after the send: the send must be staged";
  EXPECT_EQ(call.stagingOffset[4], PreparedProgram::kNotStaged)
      << "nothing overwrites in[0] later: posted in place";
}

}  // namespace
}  // namespace collplan
