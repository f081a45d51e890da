// coll-schedule-steps: (being written).
#include "compiler/Passes.h"

namespace collplan {
#define GEN_PASS_DEF_COLLSCHEDULESTEPS
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollScheduleStepsPass : collplan::impl::CollScheduleStepsBase<CollScheduleStepsPass> {
  void runOnOperation() override {}
};

}  // namespace
