// TemplateEvaluator: runs a coll.template's body for one set of arguments and emits its
// level-2 ops; the arithmetic it understands lives in TemplateArith.cpp.
#include "compiler/template/TemplateEvaluator.h"

#include "compiler/template/TemplateArith.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IntegerSet.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <memory>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// Evaluation stops after this many ops: a template whose loops do not end (or end after
/// billions of steps) is reported rather than run forever. A 4096-rank ring is ~50 M.
constexpr uint64_t kMaxEvaluatedOps = uint64_t(200) << 20;

/// What one SSA value of the template holds during evaluation.
struct Cell {
  enum class Kind { Unset, Int, Chunk, Table } kind = Kind::Unset;
  int64_t value = 0;
  Value chunk;
  /// A table of chunks (tensor<?x!coll.chunk>): null entries were never written.
  std::shared_ptr<const std::vector<Value>> table;

  static Cell ofInt(int64_t v) { return Cell{Kind::Int, v, {}, {}}; }
  static Cell ofChunk(Value v) { return Cell{Kind::Chunk, 0, v, {}}; }
  static Cell ofTable(std::vector<Value> t) {
    return Cell{Kind::Table, 0, {}, std::make_shared<const std::vector<Value>>(std::move(t))};
  }
};

/// Thrown (and caught at the top of the evaluation) once an error was reported on an op.
struct Reported {};

/// `loc` in `context`: the same file, line and column when the schedule is built in another
/// context than the template's (a template registered as an algorithm); unknown otherwise.
Location locationIn(MLIRContext *context, Location loc) {
  if (loc->getContext() == context) return loc;
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return FileLineColLoc::get(context, file.getFilename().getValue(), file.getLine(),
                               file.getColumn());
  return UnknownLoc::get(context);
}

}  // namespace

struct TemplateEvaluator::Run {
  Run(TemplateOp tmpl, const TemplateArguments &args) : tmpl(tmpl), args(args) {}

  TemplateOp tmpl;
  const TemplateArguments &args;
  const BuilderFactory *make = nullptr;  ///< null: evaluate up to coll.tmpl.chunks only
  ScheduleBuilder *builder = nullptr;
  std::optional<int> chunks;
  bool stop = false;  ///< the chunk count is known and nothing is emitted
  uint64_t evaluated = 0;
  llvm::DenseMap<Value, Cell> env;

  [[noreturn]] void fail(Operation *op, const Twine &message) {
    op->emitError() << message << " (" << describeArguments(args) << ")";
    throw Reported{};
  }

  const Cell &cell(Operation *op, Value v) {
    auto it = env.find(v);
    if (it == env.end() || it->second.kind == Cell::Kind::Unset)
      fail(op, "uses a value the template did not compute");
    return it->second;
  }
  int64_t integer(Operation *op, Value v) {
    const Cell &c = cell(op, v);
    if (c.kind != Cell::Kind::Int) fail(op, "expects an index or integer operand");
    return c.value;
  }
  Value chunk(Operation *op, Value v) {
    const Cell &c = cell(op, v);
    if (c.kind != Cell::Kind::Chunk) fail(op, "expects a !coll.chunk operand");
    return c.chunk;
  }
  const std::vector<Value> &table(Operation *op, Value v) {
    const Cell &c = cell(op, v);
    if (c.kind != Cell::Kind::Table) fail(op, "expects a table of chunks");
    return *c.table;
  }

  /// Runs the ops of `block` with its arguments bound to `args`; returns what its scf.yield
  /// yields (nothing for the template's own body).
  SmallVector<Cell> runBlock(Block &block, ArrayRef<Cell> blockArgs);
  void runOp(Operation &op);
  void runFor(scf::ForOp op);
  void runIf(scf::IfOp op);
  void runLoop(Operation *op, int64_t lower, int64_t upper, int64_t step, Block &body,
               ValueRange inits, ResultRange results);
  void runAffine(Operation &op);
  SmallVector<int64_t, 2> applyMap(Operation *op, AffineMap map, ValueRange operands);
  void runTensor(Operation &op);
  void runColl(Operation &op);
  void runPattern(Operation &op);
  /// The value of a pattern op's map at `position` (its first dimension), and as a rank.
  int64_t mapAt(Operation *op, AffineMap map, ValueRange operands, int64_t position);
  int64_t rankAt(Operation *op, AffineMap map, ValueRange operands, int64_t position);
  Value reduceChainOfInputs(TmplReduceChainOp op);
  Value reduceChainOfTable(TmplReduceChainOp op);
  std::vector<Value> copyChain(TmplCopyChainOp op);
  std::vector<Value> exchange(TmplExchangeOp op);
  Value reduceTo(TmplReduceToOp op);

  int64_t rankOperand(Operation *op, Value v, StringRef what);
  int64_t chunkOperand(Operation *op, Value v);
  ScheduleBuilder &emitter(Operation *op);
  void withStep(Operation *op, Value step, const std::function<void()> &emit);
};

SmallVector<Cell> TemplateEvaluator::Run::runBlock(Block &block, ArrayRef<Cell> blockArgs) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), blockArgs)) env[arg] = value;
  for (Operation &op : block) {
    if (stop) return {};
    if (isa<scf::YieldOp, affine::AffineYieldOp, tensor::YieldOp>(op)) {
      SmallVector<Cell> out;
      for (Value v : op.getOperands()) out.push_back(cell(&op, v));
      return out;
    }
    if (++evaluated > kMaxEvaluatedOps)
      fail(&op, "evaluated more than " + Twine(kMaxEvaluatedOps) +
                    " ops: a loop that does not end, or a schedule too large to instantiate");
    runOp(op);
  }
  return {};
}

void TemplateEvaluator::Run::runOp(Operation &op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto value = dyn_cast<IntegerAttr>(constant.getValue());
    if (!value) fail(&op, "a template computes with index and integer constants only");
    env[constant.getResult()] = Cell::ofInt(value.getValue().getSExtValue());
    return;
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    const int64_t condition = integer(&op, select.getCondition());
    env[select.getResult()] =
        cell(&op, condition ? select.getTrueValue() : select.getFalseValue());
    return;
  }
  if (op.getDialect() && op.getDialect()->getNamespace() == "arith") {
    SmallVector<int64_t, 2> operands;
    for (Value v : op.getOperands()) operands.push_back(integer(&op, v));
    std::string error;
    std::optional<int64_t> result = evaluateArith(op, operands, error);
    if (!result) fail(&op, error);
    env[op.getResult(0)] = Cell::ofInt(*result);
    return;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) return runFor(loop);
  if (op.getDialect() && op.getDialect()->getNamespace() == "affine") return runAffine(op);
  if (auto branch = dyn_cast<scf::IfOp>(op)) return runIf(branch);
  if (op.getDialect() && op.getDialect()->getNamespace() == "tensor") return runTensor(op);
  if (isa<TmplChunksOp, TmplRequireOp, TmplInputOp, TmplCopyOp, TmplReduceOp,
          TmplReduceSendOp, TmplDupOp, TmplOutputOp>(op))
    return runColl(op);
  if (isa<TmplDivideOp, TmplLog2Op, TmplReduceChainOp, TmplCopyChainOp, TmplExchangeOp,
          TmplReduceToOp>(op))
    return runPattern(op);
  fail(&op, "'" + op.getName().getStringRef() +
                "' cannot appear in a template (it holds affine.for/if/apply/min/max, arith, "
                "scf.for/if, tensor.empty/generate/from_elements/insert/extract/dim and "
                "coll.tmpl ops)");
}

void TemplateEvaluator::Run::runLoop(Operation *op, int64_t lower, int64_t upper, int64_t step,
                                     Block &body, ValueRange inits, ResultRange results) {
  if (step <= 0) fail(op, "loop step " + Twine(step) + " is not positive");
  SmallVector<Cell> carried;
  for (Value v : inits) carried.push_back(cell(op, v));
  for (int64_t iv = lower; iv < upper && !stop; iv += step) {
    SmallVector<Cell> blockArgs{Cell::ofInt(iv)};
    blockArgs.append(carried.begin(), carried.end());
    carried = runBlock(body, blockArgs);
  }
  if (stop) return;
  for (auto [result, value] : llvm::zip(results, carried)) env[result] = value;
}

void TemplateEvaluator::Run::runFor(scf::ForOp op) {
  runLoop(op, integer(op, op.getLowerBound()), integer(op, op.getUpperBound()),
          integer(op, op.getStep()), *op.getBody(), op.getInitArgs(), op.getResults());
}

SmallVector<int64_t, 2> TemplateEvaluator::Run::applyMap(Operation *op, AffineMap map,
                                                         ValueRange operands) {
  SmallVector<int64_t, 4> values;
  for (Value v : operands) values.push_back(integer(op, v));
  std::string error;
  std::optional<SmallVector<int64_t, 2>> results = evaluateAffineMap(map, values, error);
  if (!results) fail(op, error);
  return *results;
}

void TemplateEvaluator::Run::runAffine(Operation &op) {
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    env[apply.getResult()] =
        Cell::ofInt(applyMap(&op, apply.getAffineMap(), apply.getMapOperands()).front());
  } else if (auto loop = dyn_cast<affine::AffineForOp>(op)) {
    // The loop runs from the largest lower bound to the smallest upper bound.
    SmallVector<int64_t, 2> lower =
        applyMap(&op, loop.getLowerBoundMap(), loop.getLowerBoundOperands());
    SmallVector<int64_t, 2> upper =
        applyMap(&op, loop.getUpperBoundMap(), loop.getUpperBoundOperands());
    runLoop(&op, *std::max_element(lower.begin(), lower.end()),
            *std::min_element(upper.begin(), upper.end()), loop.getStepAsInt(),
            *loop.getBody(), loop.getInits(), loop.getResults());
  } else if (auto branch = dyn_cast<affine::AffineIfOp>(op)) {
    SmallVector<int64_t, 4> values;
    for (Value v : branch.getOperands()) values.push_back(integer(&op, v));
    std::string error;
    std::optional<bool> holds = evaluateIntegerSet(branch.getIntegerSet(), values, error);
    if (!holds) fail(&op, error);
    Region &region = *holds ? branch.getThenRegion() : branch.getElseRegion();
    if (region.empty()) return;
    SmallVector<Cell> results = runBlock(region.front(), {});
    if (stop) return;
    for (auto [result, value] : llvm::zip(branch.getResults(), results)) env[result] = value;
  } else if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op)) {
    auto map = op.getAttrOfType<AffineMapAttr>("map").getValue();
    SmallVector<int64_t, 2> values = applyMap(&op, map, op.getOperands());
    env[op.getResult(0)] = Cell::ofInt(isa<affine::AffineMinOp>(op)
                                           ? *std::min_element(values.begin(), values.end())
                                           : *std::max_element(values.begin(), values.end()));
  } else {
    fail(&op, "'" + op.getName().getStringRef() + "' cannot appear in a template");
  }
}

void TemplateEvaluator::Run::runIf(scf::IfOp op) {
  Region &region = integer(op, op.getCondition()) ? op.getThenRegion() : op.getElseRegion();
  if (region.empty()) return;  // no else: an if without results
  SmallVector<Cell> results = runBlock(region.front(), {});
  if (stop) return;
  for (auto [result, value] : llvm::zip(op.getResults(), results)) env[result] = value;
}

void TemplateEvaluator::Run::runTensor(Operation &op) {
  auto index = [&](Value table, ValueRange indices) -> size_t {
    const std::vector<Value> &t = this->table(&op, table);
    if (indices.size() != 1) fail(&op, "tables of chunks have one dimension");
    const int64_t i = integer(&op, indices.front());
    if (i < 0 || size_t(i) >= t.size())
      fail(&op, "index " + Twine(i) + " is out of range of a table of " + Twine(t.size()));
    return size_t(i);
  };
  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    auto type = empty.getType();
    if (type.getRank() != 1) fail(&op, "tables of chunks have one dimension");
    const int64_t size = type.isDynamicDim(0) ? integer(&op, empty.getDynamicSizes().front())
                                              : type.getDimSize(0);
    if (size < 0) fail(&op, "a table of " + Twine(size) + " chunks");
    env[empty.getResult()] = Cell::ofTable(std::vector<Value>(size_t(size)));
  } else if (auto elements = dyn_cast<tensor::FromElementsOp>(op)) {
    std::vector<Value> t;
    for (Value v : elements.getElements()) t.push_back(chunk(&op, v));
    env[elements.getResult()] = Cell::ofTable(std::move(t));
  } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
    std::vector<Value> t = table(&op, insert.getDest());
    t[index(insert.getDest(), insert.getIndices())] = chunk(&op, insert.getScalar());
    env[insert.getResult()] = Cell::ofTable(std::move(t));
  } else if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    const size_t i = index(extract.getTensor(), extract.getIndices());
    Value v = table(&op, extract.getTensor())[i];
    if (!v) fail(&op, "reads element " + Twine(i) + " of a table, which was never written");
    env[extract.getResult()] = Cell::ofChunk(v);
  } else if (auto generate = dyn_cast<tensor::GenerateOp>(op)) {
    if (generate.getType().getRank() != 1) fail(&op, "tables of chunks have one dimension");
    const int64_t size = generate.getType().isDynamicDim(0)
                             ? integer(&op, generate.getDynamicExtents().front())
                             : generate.getType().getDimSize(0);
    if (size < 0) fail(&op, "a table of " + Twine(size) + " chunks");
    std::vector<Value> t;
    for (int64_t i = 0; i < size; ++i) {
      SmallVector<Cell> yielded = runBlock(generate.getBody().front(), {Cell::ofInt(i)});
      if (stop) return;
      if (yielded.empty() || yielded.front().kind != Cell::Kind::Chunk)
        fail(&op, "entry " + Twine(i) + " is not a !coll.chunk");
      t.push_back(yielded.front().chunk);
    }
    env[generate.getResult()] = Cell::ofTable(std::move(t));
  } else if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    env[dim.getResult()] = Cell::ofInt(int64_t(table(&op, dim.getSource()).size()));
  } else {
    fail(&op, "'" + op.getName().getStringRef() + "' cannot appear in a template");
  }
}

int64_t TemplateEvaluator::Run::rankOperand(Operation *op, Value v, StringRef what) {
  const int64_t rank = integer(op, v);
  const int64_t ranks = args.at("ranks");
  if (rank < 0 || rank >= ranks)
    fail(op, what + " " + Twine(rank) + " is out of range: ranks are 0.." + Twine(ranks - 1));
  return rank;
}

int64_t TemplateEvaluator::Run::chunkOperand(Operation *op, Value v) {
  const int64_t chunk = integer(op, v);
  const int64_t limit = std::max<int64_t>(*chunks, args.at("ranks"));
  if (chunk < 0 || chunk >= limit)
    fail(op, "chunk " + Twine(chunk) + " is out of range: the message has " + Twine(limit) +
                 " chunks");
  return chunk;
}

ScheduleBuilder &TemplateEvaluator::Run::emitter(Operation *op) {
  if (!chunks) chunks = 1;
  if (!make) {  // only the chunk count was asked for
    stop = true;
    throw Reported{};
  }
  if (!builder) builder = &(*make)(*chunks);
  builder->setLocation(locationIn(builder->schedule()->getContext(), op->getLoc()));
  return *builder;
}

void TemplateEvaluator::Run::withStep(Operation *op, Value step, const std::function<void()> &emit) {
  ScheduleBuilder &b = emitter(op);
  if (step) {
    const int64_t s = integer(op, step);
    if (s < 0) fail(op, "step " + Twine(s) + " is negative");
    b.setStep(int(s));
  }
  emit();
  b.setStep(-1);
}

void TemplateEvaluator::Run::runColl(Operation &op) {
  Operation *at = &op;
  llvm::TypeSwitch<Operation *>(at)
      .Case([&](TmplChunksOp o) {
        if (chunks) fail(at, "the chunk count is set twice, or after the first chunk op");
        const int64_t n = integer(at, o.getCount());
        if (n < 1 || n > int64_t(1) << 20) fail(at, "chunk count " + Twine(n) + " is not 1..2^20");
        chunks = int(n);
        if (!make) stop = true;
      })
      .Case([&](TmplRequireOp o) {
        if (!integer(at, o.getCondition())) fail(at, "requires: " + o.getMessage());
      })
      .Case([&](TmplInputOp o) {
        ScheduleBuilder &b = emitter(at);
        env[o.getResult()] = Cell::ofChunk(b.input(int(rankOperand(at, o.getRank(), "rank")),
                                                   int(chunkOperand(at, o.getChunk()))));
      })
      .Case([&](TmplCopyOp o) {
        withStep(at, o.getStep(), [&] {
          env[o.getResult()] = Cell::ofChunk(builder->copy(
              chunk(at, o.getSrc()), int(rankOperand(at, o.getRank(), "rank"))));
        });
      })
      .Case([&](TmplReduceOp o) {
        withStep(at, o.getStep(), [&] {
          SmallVector<Value> values;
          for (Value v : o.getValues()) values.push_back(chunk(at, v));
          env[o.getResult()] = Cell::ofChunk(
              builder->reduce(values, int(rankOperand(at, o.getRank(), "rank"))));
        });
      })
      .Case([&](TmplReduceSendOp o) {
        withStep(at, o.getStep(), [&] {
          SmallVector<Value> values;
          for (Value v : o.getValues()) values.push_back(chunk(at, v));
          // A reduce and its copy: coll-fuse-reduce-copy decides the fusion, as for every
          // schedule.
          env[o.getResult()] = Cell::ofChunk(builder->copy(
              builder->reduce(values, int(rankOperand(at, o.getRank(), "rank"))),
              int(rankOperand(at, o.getDest(), "destination rank"))));
        });
      })
      .Case([&](TmplDupOp o) {
        ScheduleBuilder &b = emitter(at);
        SmallVector<int> ranks;
        for (Value v : o.getRanks()) ranks.push_back(int(rankOperand(at, v, "rank")));
        SmallVector<Value> copies = b.dup(chunk(at, o.getSrc()), ranks);
        for (auto [result, copy] : llvm::zip(o.getResults(), copies))
          env[result] = Cell::ofChunk(copy);
      })
      .Case([&](TmplOutputOp o) {
        ScheduleBuilder &b = emitter(at);
        b.output(chunk(at, o.getValue()), int(rankOperand(at, o.getRank(), "rank")),
                 int(chunkOperand(at, o.getChunk())));
      });
}

int64_t TemplateEvaluator::Run::mapAt(Operation *op, AffineMap map, ValueRange operands,
                                     int64_t position) {
  SmallVector<int64_t, 4> values{position};
  for (Value v : operands) values.push_back(integer(op, v));
  std::string error;
  std::optional<SmallVector<int64_t, 2>> results = evaluateAffineMap(map, values, error);
  if (!results) fail(op, error);
  return results->front();
}

int64_t TemplateEvaluator::Run::rankAt(Operation *op, AffineMap map, ValueRange operands,
                                      int64_t position) {
  const int64_t rank = mapAt(op, map, operands, position), count = args.at("ranks");
  if (rank < 0 || rank >= count)
    fail(op, "the map gives rank " + Twine(rank) + " at position " + Twine(position) +
                 ", out of range: ranks are 0.." + Twine(count - 1));
  return rank;
}

Value TemplateEvaluator::Run::reduceChainOfInputs(TmplReduceChainOp op) {
  const int64_t count = integer(op, op.getCount());
  if (count < 1) fail(op, "a chain of " + Twine(count) + " ranks");
  const AffineMap map = op.getRanksAttr().getValue();
  const int c = int(chunkOperand(op, op.getChunk()));
  ScheduleBuilder &b = emitter(op);
  Value sum = b.input(int(rankAt(op, map, op.getRankOperands(), 0)), c);
  for (int64_t k = 1; k < count; ++k) {
    const int rank = int(rankAt(op, map, op.getRankOperands(), k));
    Value arrived = b.copy(sum, rank);
    sum = b.reduce({arrived, b.input(rank, c)}, rank);
  }
  return sum;
}

Value TemplateEvaluator::Run::reduceChainOfTable(TmplReduceChainOp op) {
  const std::vector<Value> &entries = table(op, op.getTable());
  if (entries.empty()) fail(op, "reduces an empty table");
  ScheduleBuilder &b = emitter(op);
  Value sum;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i]) fail(op, "entry " + Twine(i) + " of the table was never written");
    if (i == 0) {
      sum = entries[0];
      continue;
    }
    const int rank = b.rankOf(entries[i]);
    sum = b.reduce({b.copy(sum, rank), entries[i]}, rank);
  }
  return sum;
}

std::vector<Value> TemplateEvaluator::Run::copyChain(TmplCopyChainOp op) {
  const int64_t count = integer(op, op.getCount());
  if (count < 1) fail(op, "a chain of " + Twine(count) + " ranks");
  ScheduleBuilder &b = emitter(op);
  Value value = chunk(op, op.getSrc());
  const int start = int(rankAt(op, op.getRanks(), op.getRankOperands(), 0));
  if (start != b.rankOf(value))
    fail(op, "the chain starts at rank " + Twine(start) + " but the value is at rank " +
                 Twine(b.rankOf(value)));
  std::optional<int> output;
  if (op.getChunk()) output = int(chunkOperand(op, op.getChunk()));
  std::vector<Value> visited;
  for (int64_t k = 0; k < count; ++k) {
    const int rank = int(rankAt(op, op.getRanks(), op.getRankOperands(), k));
    if (k > 0) value = b.copy(value, rank);
    if (output) b.output(value, rank, *output);
    visited.push_back(value);
  }
  return visited;
}

std::vector<Value> TemplateEvaluator::Run::exchange(TmplExchangeOp op) {
  const std::vector<Value> &entries = table(op, op.getTable());
  ScheduleBuilder &b = emitter(op);
  std::vector<Value> reduced;
  for (size_t i = 0; i < entries.size(); ++i) {
    const int64_t partner = mapAt(op, op.getPartner(), op.getPartnerOperands(), int64_t(i));
    if (partner < 0 || partner >= int64_t(entries.size()) || partner == int64_t(i))
      fail(op, "entry " + Twine(i) + "'s partner is " + Twine(partner) +
                   ": partners are other entries of the table of " + Twine(entries.size()));
    Value mine = entries[i], theirs = entries[size_t(partner)];
    if (!mine || !theirs) fail(op, "exchanges an entry of the table that was never written");
    const int rank = b.rankOf(mine);
    Value arrived = b.copy(theirs, rank);
    reduced.push_back(int64_t(i) < partner ? b.reduce({mine, arrived}, rank)
                                           : b.reduce({arrived, mine}, rank));
  }
  return reduced;
}

Value TemplateEvaluator::Run::reduceTo(TmplReduceToOp op) {
  const std::vector<Value> &entries = table(op, op.getTable());
  if (entries.empty()) fail(op, "reduces an empty table");
  const int rank = int(rankOperand(op, op.getRank(), "rank"));
  ScheduleBuilder &b = emitter(op);
  SmallVector<Value> operands;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i]) fail(op, "entry " + Twine(i) + " of the table was never written");
    operands.push_back(b.rankOf(entries[i]) == rank ? entries[i] : b.copy(entries[i], rank));
  }
  return operands.size() == 1 ? operands.front() : b.reduce(operands, rank);
}

void TemplateEvaluator::Run::runPattern(Operation &op) {
  Operation *at = &op;
  llvm::TypeSwitch<Operation *>(at)
      .Case([&](TmplDivideOp o) {
        const int64_t dividend = integer(at, o.getDividend()), divisor = integer(at, o.getDivisor());
        if (divisor <= 0) fail(at, "divides by " + Twine(divisor));
        if (dividend % divisor != 0) fail(at, "requires: " + o.getMessage());
        env[o.getResult()] = Cell::ofInt(dividend / divisor);
      })
      .Case([&](TmplLog2Op o) {
        const int64_t value = integer(at, o.getValue());
        if (value < 1) fail(at, "log2 of " + Twine(value));
        env[o.getResult()] = Cell::ofInt(63 - __builtin_clzll(uint64_t(value)));
      })
      .Case([&](TmplReduceChainOp o) {
        env[o.getResult()] =
            Cell::ofChunk(o.getTable() ? reduceChainOfTable(o) : reduceChainOfInputs(o));
      })
      .Case([&](TmplCopyChainOp o) { env[o.getResult()] = Cell::ofTable(copyChain(o)); })
      .Case([&](TmplExchangeOp o) {
        withStep(at, o.getStep(), [&] { env[o.getResult()] = Cell::ofTable(exchange(o)); });
      })
      .Case([&](TmplReduceToOp o) { env[o.getResult()] = Cell::ofChunk(reduceTo(o)); });
}

namespace {

/// The template's parameters' values, in its order: the body's block arguments.
SmallVector<Cell> paramCells(TemplateOp tmpl, const TemplateArguments &args) {
  SmallVector<Cell> params;
  for (Attribute name : tmpl.getParams())
    params.push_back(Cell::ofInt(args.at(cast<StringAttr>(name).str())));
  return params;
}

}  // namespace

TemplateEvaluator::TemplateEvaluator(TemplateOp tmpl, TemplateArguments args)
    : tmpl_(tmpl), args_(std::move(args)) {}

FailureOr<int> TemplateEvaluator::chunks() {
  Run run(tmpl_, args_);
  try {
    run.runBlock(tmpl_.getBodyBlock(), paramCells(tmpl_, args_));
  } catch (const Reported &) {
    if (!run.stop) return failure();
  }
  return run.chunks.value_or(1);
}

LogicalResult TemplateEvaluator::emit(const BuilderFactory &make) {
  Run run(tmpl_, args_);
  run.make = &make;
  try {
    run.runBlock(tmpl_.getBodyBlock(), paramCells(tmpl_, args_));
  } catch (const Reported &) {
    return failure();
  }
  if (!run.builder) (void)make(run.chunks.value_or(1));  // a template that moves nothing
  return success();
}

}  // namespace collplan
