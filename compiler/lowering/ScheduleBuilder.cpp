// Emission of level-2 ops for lowerings.
#include "compiler/lowering/ScheduleBuilder.h"

using namespace mlir;
using namespace mlir::coll;

namespace collplan {

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
      spec.remoteReads ? builder_.getUnitAttr() : UnitAttr());
  Block *body = new Block();
  schedule_.getBody().push_back(body);
  builder_.setInsertionPointToEnd(body);
}

void ScheduleBuilder::annotate(Operation *op) {
  if (step_ >= 0) op->setAttr("step", builder_.getI64IntegerAttr(step_));
  if (channel_ >= 0) op->setAttr("channel", builder_.getI64IntegerAttr(channel_));
}

Value ScheduleBuilder::track(Operation *op, int rank) {
  annotate(op);
  Value v = op->getResult(0);
  rankOf_[v] = rank;
  return v;
}

Value ScheduleBuilder::input(int rank, int chunk, int slice) {
  auto key = std::make_tuple(rank, chunk, slice);
  auto it = inputs_.find(key);
  if (it != inputs_.end()) return it->second;
  auto op = builder_.create<InputOp>(loc_, ChunkType::get(builder_.getContext()),
                                     uint64_t(rank), uint64_t(chunk),
                                     spec_.slices > 1 ? builder_.getI64IntegerAttr(slice)
                                                      : IntegerAttr());
  Value v = op.getResult();
  rankOf_[v] = rank;
  return inputs_[key] = v;
}

Value ScheduleBuilder::copy(Value v, int toRank) {
  return track(builder_.create<CopyOp>(loc_, ChunkType::get(builder_.getContext()), v,
                                       uint64_t(toRank)),
               toRank);
}

Value ScheduleBuilder::reduce(ArrayRef<Value> operands, int rank) {
  if (operands.size() == 1) return operands.front();
  return track(builder_.create<coll::ReduceOp>(loc_, ChunkType::get(builder_.getContext()),
                                               operands, uint64_t(rank)),
               rank);
}

Value ScheduleBuilder::reduceSend(ArrayRef<Value> operands, int rank, int toRank) {
  if (operands.size() == 1) return copy(operands.front(), toRank);
  return track(builder_.create<ReduceSendOp>(loc_, ChunkType::get(builder_.getContext()),
                                             operands, uint64_t(rank), uint64_t(toRank)),
               toRank);
}

SmallVector<Value> ScheduleBuilder::dup(Value v, ArrayRef<int> toRanks) {
  if (toRanks.size() == 1) return {copy(v, toRanks.front())};
  SmallVector<int64_t> ranks(toRanks.begin(), toRanks.end());
  SmallVector<Type> types(ranks.size(), ChunkType::get(builder_.getContext()));
  auto op = builder_.create<DupOp>(loc_, types, v, ranks);
  annotate(op);
  SmallVector<Value> results(op.getResults().begin(), op.getResults().end());
  for (auto [result, rank] : llvm::zip(results, toRanks)) rankOf_[result] = rank;
  return results;
}

void ScheduleBuilder::output(Value v, int rank, int chunk, int slice) {
  builder_.create<OutputOp>(loc_, v, uint64_t(rank), uint64_t(chunk),
                            spec_.slices > 1 ? builder_.getI64IntegerAttr(slice)
                                             : IntegerAttr());
}

}  // namespace collplan
