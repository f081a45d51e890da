// readRankOps / writeRankOps / inPlaceUnitShift over coll.rank bodies.
#include "compiler/export/RankOps.h"

#include "dialects/coll/CollectiveSpec.h"
#include "runtime/core/Collective.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {

std::vector<Instruction> readRankOps(RankOp rank) {
  std::vector<Instruction> ops;
  for (Operation &instr : rank.getBody().front()) ops.push_back(readInstruction(&instr));
  return ops;
}

void writeRankOps(RankOp rank, const std::vector<Instruction> &ops) {
  Block &body = rank.getBody().front();
  while (!body.empty()) body.back().erase();
  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  for (const Instruction &op : ops) createInstruction(builder, rank.getLoc(), op);
}

int64_t inPlaceUnitShift(ProgramOp program, int rank) {
  const CollectiveSpec spec = CollectiveSpec::fromOp(program);
  const int blocks = messageBlocks(spec.kind, spec.ranks);
  const int64_t unitsPerBlock = blocks > 0 ? int64_t(program.getUnits()) / blocks : 0;
  return inPlaceBlockShift(spec.kind, spec.root, rank) * unitsPerBlock;
}

}  // namespace collplan
