// Hand-built calibration plans (see CalibrationPlans.h); each passes validatePlan.
#include "tuner/calibrate/CalibrationPlans.h"

#include "runtime/plan/PlanValidate.h"

#include <stdexcept>
#include <string>

namespace collplan::calibrate {
namespace {

Plan emptyPlan(int ranks, const char *algorithm, uint32_t units) {
  if (ranks < 1) throw std::invalid_argument("calibration plan: ranks must be >= 1");
  Plan plan;
  plan.collective = CollectiveKind::AllReduce;
  plan.ranks = ranks;
  plan.op = ReduceOp::Sum;
  plan.algorithm = algorithm;
  plan.params = {{"calibration", true}};
  plan.units = units;
  plan.programs.resize(size_t(ranks));
  return plan;
}

PlanOp op(OpKind kind) {
  PlanOp o;
  o.kind = kind;
  return o;
}

Plan validated(Plan plan) {
  validatePlan(plan, plan.algorithm);
  return plan;
}

}  // namespace

Plan ringShiftPlan(int ranks) {
  if (ranks < 2) throw std::invalid_argument("ring shift: needs at least 2 ranks");
  Plan plan = emptyPlan(ranks, "calibration-ring-shift", 1);
  plan.scratchUnits = 1;
  for (int r = 0; r < ranks; ++r) {
    int next = (r + 1) % ranks, prev = (r + ranks - 1) % ranks;
    PlanOp fresh = op(OpKind::Copy);
    fresh.srcs = {{BufferKind::In, 0, 1}};
    fresh.dsts = {{BufferKind::Tmp, 0, 1}};
    fresh.step = 0;
    PlanOp send = op(OpKind::Send);
    send.srcs = {{BufferKind::Tmp, 0, 1}};
    send.sends = {next};
    send.step = 0;
    PlanOp recv = op(OpKind::Recv);
    recv.recv = prev;
    recv.dsts = {{BufferKind::Out, 0, 1}};
    recv.step = 1;
    plan.programs[size_t(r)].channel(0) = {fresh, send, recv};
  }
  plan.predicted = {1, 1};
  return validated(std::move(plan));
}

Plan localCopyPlan(int ranks) {
  Plan plan = emptyPlan(ranks, "calibration-copy", 1);
  for (auto &program : plan.programs) {
    PlanOp copy = op(OpKind::Copy);
    copy.srcs = {{BufferKind::In, 0, 1}};
    copy.dsts = {{BufferKind::Out, 0, 1}};
    copy.step = 0;
    program.channel(0) = {copy};
  }
  return validated(std::move(plan));
}

Plan localCopyChainPlan(int ranks, uint32_t ops) {
  if (ops < 1) throw std::invalid_argument("copy chain: needs at least one op");
  Plan plan = emptyPlan(ranks, "calibration-copy-chain", ops);
  for (auto &program : plan.programs)
    for (uint32_t u = 0; u < ops; ++u) {
      PlanOp copy = op(OpKind::Copy);
      copy.srcs = {{BufferKind::In, u, 1}};
      copy.dsts = {{BufferKind::Out, u, 1}};
      copy.step = int32_t(u);
      program.channel(0).push_back(copy);
    }
  return validated(std::move(plan));
}

Plan localReducePlan(int ranks) {
  Plan plan = emptyPlan(ranks, "calibration-reduce", 1);
  for (auto &program : plan.programs) {
    PlanOp reduce = op(OpKind::Reduce);
    reduce.srcs = {{BufferKind::In, 0, 1}, {BufferKind::Out, 0, 1}};
    reduce.dsts = {{BufferKind::Out, 0, 1}};
    reduce.step = 0;
    program.channel(0) = {reduce};
  }
  return validated(std::move(plan));
}

}  // namespace collplan::calibrate
