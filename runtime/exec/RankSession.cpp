// RankSession: prepared programs cached per plan over one rank's transport and executor.
#include "runtime/exec/RankSession.h"

namespace collplan {

RankSession::RankSession(std::unique_ptr<Transport> transport, size_t streamingCopyMinBytes)
    : transport_(std::move(transport)), executor_(*transport_, streamingCopyMinBytes) {}

const PreparedProgram &RankSession::prepare(const Plan &plan) {
  if (&plan == lastPlan_) return *lastProgram_;
  std::unique_ptr<PreparedProgram> &program = programs_[&plan];
  if (!program) program = std::make_unique<PreparedProgram>(plan, rank(), *transport_);
  lastPlan_ = &plan;
  lastProgram_ = program.get();
  return *program;
}

}  // namespace collplan
