// The calibration plans: valid, the shapes calibrate relies on, simulated as α + M/B.
#include "tuner/calibrate/CalibrationPlans.h"

#include "runtime/plan/PlanValidate.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"

#include <gtest/gtest.h>

using namespace collplan;
using namespace collplan::calibrate;

TEST(CalibrationPlans, ValidForSeveralRankCounts) {
  for (int n : {2, 3, 4, 8}) {
    EXPECT_NO_THROW(validatePlan(ringShiftPlan(n), "shift"));
    EXPECT_NO_THROW(validatePlan(localCopyPlan(n), "copy"));
    EXPECT_NO_THROW(validatePlan(localReducePlan(n), "reduce"));
    EXPECT_NO_THROW(validatePlan(localCopyChainPlan(n, 8), "chain"));
  }
  EXPECT_THROW(ringShiftPlan(1), std::invalid_argument);
}

TEST(CalibrationPlans, Shapes) {
  Plan shift = ringShiftPlan(4);
  ASSERT_EQ(shift.programs.size(), 4u);
  ASSERT_EQ(shift.programs[2].channels.at(0).ops.size(), 3u);  // fresh copy, send it, receive
  EXPECT_EQ(shift.programs[2].channels[0].ops[0].dsts.at(0).buf, BufferKind::Tmp);
  EXPECT_EQ(shift.programs[2].channels[0].ops[1].sends.at(0), 3);
  EXPECT_EQ(*shift.programs[0].channels[0].ops[2].recv, 3);
  EXPECT_EQ(shift.scratchUnits, 1u);
  Plan chain = localCopyChainPlan(2, 8);
  EXPECT_EQ(chain.units, 8u);
  EXPECT_EQ(chain.programs[1].channels.at(0).ops.size(), 8u);
  EXPECT_EQ(chain.programs[1].channels[0].ops[5].srcs.at(0).offset, 5u);
  Plan reduce = localReducePlan(2);
  EXPECT_EQ(reduce.units, 1u);
  EXPECT_EQ(reduce.programs[1].channels.at(0).ops[0].numOperands(), 2u);
}

TEST(CalibrationPlans, ShiftSimulatesAsOneTransfer) {
  // α-β mode on a ring of 4 with 10 GB/s, 2 us links: α + M/B exactly (one step).
  GeneratorParams params;
  params.link = {10, 2.0, true};
  Topology topo = ring(4, params);
  SimOptions ab;
  ab.contention = false;
  ab.memory = false;
  EXPECT_NEAR(simulateTimeUs(ringShiftPlan(4), topo, 1 << 20, ab), 2.0 + (1 << 20) / 1e4, 1e-9);
}
