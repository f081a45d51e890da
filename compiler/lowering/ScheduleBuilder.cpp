// Emission of level-2 ops for lowerings.
#include "compiler/lowering/ScheduleBuilder.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {

CollectiveOp createCollectiveOp(OpBuilder &builder, Location loc, const CollectiveSpec &spec,
                               StringRef name, StringRef algorithm) {
  MLIRContext *ctx = builder.getContext();
  return builder.create<CollectiveOp>(
      loc, builder.getStringAttr(name),
      CollectiveKindAttr::get(ctx, static_cast<mlir::coll::CollectiveKind>(spec.kind)),
      builder.getI64IntegerAttr(spec.ranks), IntegerAttr(), IntegerAttr(),
      spec.op ? ReductionKindAttr::get(ctx, static_cast<ReductionKind>(*spec.op))
              : ReductionKindAttr(),
      needsRoot(spec.kind) ? builder.getI64IntegerAttr(spec.root) : IntegerAttr(),
      builder.getStringAttr(algorithm));
}

ScheduleBuilder::ScheduleBuilder(OpBuilder &builder, Location loc, const CollectiveSpec &spec,
                                 StringRef name, StringRef algorithm)
    : builder_(builder), loc_(loc), spec_(spec) {
  MLIRContext *ctx = builder.getContext();
  auto i64 = [&](int64_t v) { return builder_.getI64IntegerAttr(v); };
  bool perRankChunks = messageBlocks(spec.kind, 2) == 2 && spec.kind != CollectiveKind::Barrier;
  schedule_ = builder_.create<ScheduleOp>(
      loc, builder_.getStringAttr(name),
      CollectiveKindAttr::get(ctx, static_cast<mlir::coll::CollectiveKind>(spec.kind)),
      i64(spec.ranks), perRankChunks || spec.chunks == 1 ? IntegerAttr() : i64(spec.chunks),
      spec.slices == 1 ? IntegerAttr() : i64(spec.slices),
      spec.op ? ReductionKindAttr::get(ctx, static_cast<ReductionKind>(*spec.op))
              : ReductionKindAttr(),
      needsRoot(spec.kind) ? i64(spec.root) : IntegerAttr(),
      algorithm.empty() ? StringAttr() : builder_.getStringAttr(algorithm),
      spec.remoteReads ? builder_.getUnitAttr() : UnitAttr(),
      spec.sendsFirst ? builder_.getUnitAttr() : UnitAttr(), UnitAttr());
  Block *body = new Block();
  schedule_.getBody().push_back(body);
  builder_.setInsertionPointToEnd(body);
}

ScheduleBuilder::ScheduleBuilder(const ScheduleBuilder &parent, const CollectiveSpec &spec,
                                 StageMapping mapping)
    : builder_(parent.builder_), loc_(parent.loc_), spec_(spec), schedule_(parent.schedule_),
      lastStep_(parent.lastStep_) {
  if (parent.stage_) {  // a stage of a stage: map through the parent's numbering
    for (int &rank : mapping.members) rank = parent.global(rank);
    mapping.firstStep += parent.stage_->firstStep;
  }
  stage_ = std::make_shared<const StageMapping>(std::move(mapping));
}

ScheduleBuilder ScheduleBuilder::stage(const CollectiveSpec &spec, StageMapping mapping) {
  return ScheduleBuilder(*this, spec, std::move(mapping));
}

int ScheduleBuilder::rankOf(Value v) const {
  const int rank = int(residentRank(v));
  if (!stage_) return rank;
  for (size_t i = 0; i < stage_->members.size(); ++i)
    if (stage_->members[i] == rank) return int(i);
  return -1;
}

void ScheduleBuilder::annotate(Operation *op) {
  if (step_ >= 0) {
    const int step = step_ + (stage_ ? stage_->firstStep : 0);
    op->setAttr("step", builder_.getI64IntegerAttr(step));
    *lastStep_ = std::max(*lastStep_, step);
  }
  if (channel_ >= 0) op->setAttr("channel", builder_.getI64IntegerAttr(channel_));
}

void ScheduleBuilder::keepOwnSteps() { schedule_.setOwnSteps(true); }

Value ScheduleBuilder::track(Operation *op, int) {
  annotate(op);
  return op->getResult(0);
}

Value ScheduleBuilder::input(int rank, int chunk, int slice) {
  if (stage_) return stage_->input(rank, chunk, slice);
  size_t maxChunks = size_t(std::max(spec_.chunks, spec_.ranks));
  size_t key = (size_t(rank) * maxChunks + size_t(chunk)) * size_t(spec_.slices) + size_t(slice);
  if (inputs_.empty()) inputs_.resize(size_t(spec_.ranks) * maxChunks * size_t(spec_.slices));
  if (key < inputs_.size() && inputs_[key]) return inputs_[key];
  auto op = builder_.create<InputOp>(loc_, ChunkType::get(builder_.getContext()),
                                     uint64_t(rank), uint64_t(chunk),
                                     spec_.slices > 1 ? builder_.getI64IntegerAttr(slice)
                                                      : IntegerAttr());
  Value v = op.getResult();
  if (key < inputs_.size()) inputs_[key] = v;  // out-of-range inputs fail the op verifier
  return v;
}

Value ScheduleBuilder::copy(Value v, int toRank) {
  return track(builder_.create<CopyOp>(loc_, ChunkType::get(builder_.getContext()), v,
                                       uint64_t(global(toRank))),
               toRank);
}

Value ScheduleBuilder::reduce(ArrayRef<Value> operands, int rank) {
  if (operands.size() == 1) return operands.front();
  return track(builder_.create<coll::ReduceOp>(loc_, ChunkType::get(builder_.getContext()),
                                               operands, uint64_t(global(rank))),
               rank);
}

SmallVector<Value> ScheduleBuilder::dup(Value v, ArrayRef<int> toRanks) {
  if (toRanks.size() == 1) return {copy(v, toRanks.front())};
  SmallVector<int64_t> ranks;
  for (int rank : toRanks) ranks.push_back(global(rank));
  SmallVector<Type> types(ranks.size(), ChunkType::get(builder_.getContext()));
  auto op = builder_.create<DupOp>(loc_, types, v, ranks);
  annotate(op);
  return SmallVector<Value>(op.getResults().begin(), op.getResults().end());
}

void ScheduleBuilder::output(Value v, int rank, int chunk, int slice) {
  if (stage_) return stage_->output(v, rank, chunk, slice);
  builder_.create<OutputOp>(loc_, v, uint64_t(rank), uint64_t(chunk),
                            spec_.slices > 1 ? builder_.getI64IntegerAttr(slice)
                                             : IntegerAttr());
}

}  // namespace collplan
