// readRankOps / writeRankOps / unitLayout / markInPlaceSafety over coll.rank bodies.
#include "compiler/export/RankOps.h"

#include "compiler/export/Conflicts.h"
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

/// Units from the start of `out` to where `in` starts when `rank` calls in place.
static int64_t inPlaceUnitShift(ProgramOp program, int rank) {
  const CollectiveSpec spec = CollectiveSpec::fromOp(program);
  const int blocks = messageBlocks(spec.kind, spec.ranks);
  const int64_t unitsPerBlock = blocks > 0 ? int64_t(program.getUnits()) / blocks : 0;
  return inPlaceBlockShift(spec.kind, spec.root, rank) * unitsPerBlock;
}

static constexpr llvm::StringLiteral kInPlaceSafe = "coll.inplace_safe";

UnitLayout inPlaceLayout(ProgramOp program, int rank) {
  return UnitLayout{true, inPlaceUnitShift(program, rank)};
}

UnitLayout unitLayout(ProgramOp program, int rank) {
  return program->hasAttr(kInPlaceSafe) ? inPlaceLayout(program, rank) : UnitLayout{};
}

bool inPlaceSafe(ProgramOp program) {
  for (auto rankOp : program.getBody().front().getOps<RankOp>())
    if (inputUnitsClobbered(readRankOps(rankOp), inPlaceUnitShift(program, int(rankOp.getRank()))))
      return false;
  return true;
}

bool markInPlaceSafety(ProgramOp program) {
  const bool safe = inPlaceSafe(program);
  if (safe)
    program->setAttr(kInPlaceSafe, UnitAttr::get(program.getContext()));
  else
    program->removeAttr(kInPlaceSafe);
  return safe;
}

}  // namespace collplan
