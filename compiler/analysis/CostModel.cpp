// α-β rounds under the port model, bytes, memory touches and scratch of a coll.schedule.
#include "compiler/analysis/CostModel.h"

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"
#include "runtime/core/CountNoun.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// A message of the port model: the transfers of one algorithm step between the same two ranks,
/// of the same slice and the same run of consecutive chunks (a plan's message is one range of a
/// buffer).
using MessageKey = std::tuple<int, int, int64_t, int64_t, int64_t>;  ///< from, to, step, slice, run
/// Per message, the round after which its last piece is ready (from an earlier list schedule).
using MessageFloors = std::map<MessageKey, int64_t>;

/// Assigns transfers to synchronous rounds where each rank has one send and one receive port.
class PortScheduler {
public:
  /// `floors`: rounds before which a message may not leave, so that it waits for its last piece.
  PortScheduler(int ranks, const MessageFloors &floors)
      : sendBusy_(ranks), recvBusy_(ranks), floors_(floors) {}

  /// The round in which a transfer `from` -> `to` of `size` (a fraction of M) arrives, when its
  /// value is ready after round `ready`. Transfers of one algorithm step (`step` >= 0) between
  /// the same two ranks, of the same slice and the same run of consecutive chunks (`run`: a
  /// plan's message is one range of a buffer) travel as one message when it can still take
  /// them (a halving step sends several blocks at once); otherwise the earliest round after
  /// `ready` in which `from` can send and `to` can receive.
  int64_t place(int from, int to, int64_t ready, double size, int64_t step, int64_t slice,
                int64_t run) {
    MessageKey key{from, to, step, slice, run};
    if (step >= 0) {
      int64_t &latest = pieceReady_[key];
      latest = std::max(latest, ready);
      ready = std::max(ready, hold(key));
      auto joined = messages_.find(key);
      if (joined != messages_.end() && joined->second.first > ready) {
        auto &[round, bytes] = joined->second;
        bytes += size;
        largest_[round] = std::max(largest_[round], bytes);
        return round;
      }
      split_ = split_ || joined != messages_.end();
    }
    int64_t round = ready + 1;
    while (busy(sendBusy_[from], round) || busy(recvBusy_[to], round)) ++round;
    mark(sendBusy_[from], round);
    mark(recvBusy_[to], round);
    if (round >= int64_t(largest_.size())) largest_.resize(round + 1, 0.0);
    largest_[round] = std::max(largest_[round], size);
    if (step >= 0) messages_[key] = {round, size};
    return round;
  }
  int64_t rounds() const { return largest_.empty() ? 0 : int64_t(largest_.size()) - 1; }
  double beta() const {
    double sum = 0;
    for (double size : largest_) sum += size;
    return sum;
  }
  /// The round after which message `key` may leave (its floor), or 0.
  int64_t hold(const MessageKey &key) const {
    auto floor = floors_.find(key);
    return floor == floors_.end() ? 0 : floor->second;
  }
  /// Whether some message left in pieces (a piece was ready only after the message had gone).
  bool split() const { return split_; }
  /// Per message, the round after which its last piece was ready.
  const MessageFloors &pieceReadiness() const { return pieceReady_; }

private:
  static bool busy(const std::vector<bool> &slots, int64_t round) {
    return round < int64_t(slots.size()) && slots[round];
  }
  static void mark(std::vector<bool> &slots, int64_t round) {
    if (round >= int64_t(slots.size())) slots.resize(round + 1, false);
    slots[round] = true;
  }
  std::vector<std::vector<bool>> sendBusy_, recvBusy_;
  std::vector<double> largest_;
  /// (round, accumulated size) of the message a step's blocks join.
  std::map<MessageKey, std::pair<int64_t, double>> messages_;
  const MessageFloors &floors_;
  MessageFloors pieceReady_;
  bool split_ = false;
};

/// Where a value resides and the round after which it is available there.
struct ValueState {
  int rank = 0;
  int64_t round = 0;  ///< set by the list schedule; the rest before it
  int64_t slice = 0;  ///< the slice it belongs to: one message never mixes slices
  int64_t chunk = 0;  ///< its chunk's place in the message (one message holds a run of them)
};

class CostBuilder {
public:
  CostBuilder(ScheduleOp schedule, const MessageFloors &floors)
      : schedule_(schedule), spec_(CollectiveSpec::fromOp(schedule)), ports_(spec_.ranks, floors) {
    int units = spec_.units();
    cost_.unitFraction = units > 0 ? 1.0 / units : 0.0;
    cost_.reads.assign(spec_.ranks, 0);
    cost_.writes.assign(spec_.ranks, 0);
    cost_.scratchUnits.assign(spec_.ranks, 0);
  }

  ScheduleCost run();
  const ScheduleCost &cost() const { return cost_; }
  /// After `run()`: whether a message left in pieces, and when each message's last piece was
  /// ready (the floors of the next run).
  bool splitMessages() const { return ports_.split(); }
  /// Whether some local copy is sent on in an algorithm step (a pack: it waits for its
  /// message's last piece, which only a list schedule tells).
  bool packsSentOn() const { return packsSentOn_; }
  const MessageFloors &pieceReadiness() const { return ports_.pieceReadiness(); }
  /// The round of every op after `run()` (see assignSteps).
  int64_t roundOf(Operation *op) const { return opRound_.lookup(op); }
  /// Per reduction, the round each operand arrives in (-1: local) after `run()`.
  const TransferRounds &transferRounds() const { return transferRounds_; }

private:
  void countTouches(Operation &op);
  void listSchedule();
  /// Places the op's transfers given its operands' availability; defines its results.
  void place(Operation *op);
  /// Moves a value from `from` to `to`; returns the round it arrives in.
  /// Moves value `v` (at `from`, ready after round `ready`) to `to`.
  int64_t transfer(const ValueState &v, int from, int to, int64_t ready, int64_t step) {
    if (from == to) return ready;
    ++cost_.transfers;
    return ports_.place(from, to, ready, cost_.unitFraction, step, v.slice,
                        runOf(from, to, step, v.slice, v.chunk));
  }
  /// The first chunk of the run of consecutive chunks that `chunk` belongs to among all the
  /// chunks the schedule moves from `from` to `to` in `step` (collectRuns).
  int64_t runOf(int from, int to, int64_t step, int64_t slice, int64_t chunk) const {
    auto it = stepChunks_.find({from, to, step, slice});
    if (it == stepChunks_.end()) return chunk;
    const std::set<int64_t> &chunks = it->second;
    int64_t first = chunk;
    while (chunks.count(first - 1)) --first;
    return first;
  }
  /// Fills stepChunks_ (and every value's chunk and slice) before the list schedule.
  void collectRuns();
  /// The message position of a local copy made in `step` (a pack): level 3 gives every value
  /// units of its own in program order, so a rank's local copies of one step lie side by side
  /// and travel on as one message, whichever chunks they hold (Bruck packs its scattered
  /// blocks so). Positions lie above every chunk index, apart from unpacked values.
  int64_t packedPosition(int rank, int64_t step) {
    constexpr int64_t kFirstPackedPosition = int64_t(1) << 40;
    return kFirstPackedPosition + packsMade_[{rank, step}]++;
  }
  /// Brings the operands of reduction `op` to `rank` (remote operands are transfers).
  int64_t gatherOperands(Operation *op, int rank, int64_t step) {
    // Operands from the nearest rank upstream first (ring distance rank - source): when every
    // rank gathers from all the others, round k then pairs each rank with the one k behind it,
    // a permutation, instead of every rank asking the same sources first.
    const unsigned count = op->getNumOperands();
    llvm::SmallVector<unsigned> order(count);
    for (unsigned k = 0; k < count; ++k) order[k] = k;
    auto distance = [&](unsigned k) {
      return (rank - values_[op->getOperand(k)].rank + spec_.ranks) % spec_.ranks;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned a, unsigned b) { return distance(a) < distance(b); });
    int64_t ready = 0;
    llvm::SmallVector<int64_t> &rounds = transferRounds_[op];
    rounds.assign(count, -1);
    for (unsigned k : order) {
      ValueState s = values_[op->getOperand(k)];
      const int64_t arrives = transfer(s, s.rank, rank, s.round, step);
      if (s.rank != rank) rounds[k] = arrives;
      ready = std::max(ready, arrives);
    }
    return ready;
  }
  /// The latest floor among the messages `op` sends a value in (0: none): the list schedule
  /// takes a held transfer when it can leave, not when its value is ready.
  int64_t holdOf(Operation *op);
  /// The round a local copy waits for: the floor of the messages its result leaves in, so
  /// that a pack is made with the message's last piece and lies next to it in the program.
  int64_t packHold(CopyOp pack);
  /// Ring distance of the op's first transfer: ties between equally ready transfers go to
  /// the smaller shift, which makes pairwise exchanges conflict-free.
  int shiftOf(Operation *op);
  void computeScratch();

  ScheduleOp schedule_;
  CollectiveSpec spec_;
  PortScheduler ports_;
  ScheduleCost cost_;
  llvm::DenseMap<Value, ValueState> values_;
  llvm::DenseMap<Operation *, int64_t> opRound_;
  TransferRounds transferRounds_;
  /// (from, to, step, slice) -> the chunks the schedule moves between them in that step.
  std::map<std::tuple<int, int, int64_t, int64_t>, std::set<int64_t>> stepChunks_;
  bool packsSentOn_ = false;
  /// (rank, step) -> local copies made so far (packedPosition).
  std::map<std::pair<int, int64_t>, int64_t> packsMade_;
};

void CostBuilder::countTouches(Operation &op) {
  auto rankOf = [&](Value v) { return values_[v].rank; };
  llvm::TypeSwitch<Operation *>(&op)
      .Case<InputOp>([&](InputOp in) { values_[in.getResult()].rank = int(in.getRank()); })
      .Case<CopyOp>([&](CopyOp copy) {
        ++cost_.reads[rankOf(copy.getSrc())];
        ++cost_.writes[copy.getRank()];
        values_[copy.getResult()].rank = int(copy.getRank());
      })
      .Case<DupOp>([&](DupOp dup) {
        ++cost_.reads[rankOf(dup.getSrc())];
        for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks())) {
          ++cost_.writes[rank];
          values_[result].rank = int(rank);
        }
      })
      .Case<coll::ReduceOp>([&](coll::ReduceOp reduce) {
        for (Value v : reduce.getOperands()) ++cost_.reads[rankOf(v)];
        ++cost_.writes[reduce.getRank()];
        values_[reduce.getResult()].rank = int(reduce.getRank());
      })
      .Case<ReduceSendOp>([&](ReduceSendOp reduce) {
        for (Value v : reduce.getOperands()) ++cost_.reads[rankOf(v)];
        ++cost_.writes[reduce.getDest()];
        values_[reduce.getResult()].rank = int(reduce.getDest());
      })
      .Default([](Operation *) {});
}

int CostBuilder::shiftOf(Operation *op) {
  auto shift = [&](int from, int to) { return (to - from + spec_.ranks) % spec_.ranks; };
  if (auto copy = dyn_cast<CopyOp>(op))
    return shift(values_[copy.getSrc()].rank, int(copy.getRank()));
  if (auto dup = dyn_cast<DupOp>(op))
    return shift(values_[dup.getSrc()].rank, int(dup.getRanks().front()));
  if (auto reduce = dyn_cast<ReduceSendOp>(op))
    return shift(int(reduce.getRank()), int(reduce.getDest()));
  return 0;
}

/// The `step` an algorithm gave `op`, or -1.
static int64_t stepOf(Operation *op) {
  auto step = op->getAttrOfType<IntegerAttr>("step");
  return step ? step.getInt() : -1;
}

int64_t CostBuilder::holdOf(Operation *op) {
  const int64_t step = stepOf(op);
  if (step < 0) return 0;
  auto holdTo = [&](const ValueState &v, int from, int to) {
    return ports_.hold({from, to, step, v.slice, runOf(from, to, step, v.slice, v.chunk)});
  };
  int64_t hold = 0;
  if (auto copy = dyn_cast<CopyOp>(op)) {
    const ValueState src = values_[copy.getSrc()];
    if (src.rank == int(copy.getRank())) return packHold(copy);
    hold = holdTo(src, src.rank, int(copy.getRank()));
  } else if (auto dup = dyn_cast<DupOp>(op)) {
    const ValueState src = values_[dup.getSrc()];
    for (int64_t rank : dup.getRanks()) hold = std::max(hold, holdTo(src, src.rank, int(rank)));
  } else if (auto reduce = dyn_cast<ReduceSendOp>(op)) {
    hold = holdTo(values_[reduce.getOperand(0)], int(reduce.getRank()), int(reduce.getDest()));
  }
  return hold;
}

int64_t CostBuilder::packHold(CopyOp pack) {
  const ValueState packed = values_[pack.getResult()];
  int64_t hold = 0;
  for (Operation *user : pack.getResult().getUsers()) {
    auto send = dyn_cast<CopyOp>(user);
    const int64_t step = stepOf(user);
    if (!send || step < 0 || int(send.getRank()) == packed.rank) continue;
    packsSentOn_ = true;
    const int to = int(send.getRank());
    hold = std::max(hold, ports_.hold({packed.rank, to, step, packed.slice,
                                       runOf(packed.rank, to, step, packed.slice, packed.chunk)}));
  }
  return hold;
}

void CostBuilder::place(Operation *op) {
  int64_t step = stepOf(op);
  llvm::TypeSwitch<Operation *>(op)
      .Case<InputOp>([&](InputOp in) { values_[in.getResult()].round = 0; })
      .Case<CopyOp>([&](CopyOp copy) {
        ValueState src = values_[copy.getSrc()];
        values_[copy.getResult()].round =
            src.rank == int(copy.getRank())
                ? std::max(src.round, packHold(copy))
                : transfer(src, src.rank, int(copy.getRank()), src.round, step);
      })
      .Case<DupOp>([&](DupOp dup) {
        ValueState src = values_[dup.getSrc()];
        for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks()))
          values_[result].round = transfer(src, src.rank, int(rank), src.round, step);
      })
      .Case<coll::ReduceOp>([&](coll::ReduceOp reduce) {
        values_[reduce.getResult()].round = gatherOperands(reduce, int(reduce.getRank()), step);
      })
      .Case<ReduceSendOp>([&](ReduceSendOp reduce) {
        const ValueState first = values_[reduce.getOperand(0)];
        int64_t ready = gatherOperands(reduce, int(reduce.getRank()), step);
        values_[reduce.getResult()].round =
            transfer(first, int(reduce.getRank()), int(reduce.getDest()), ready, step);
      })
      .Default([](Operation *) {});
}

/// List scheduling: an op is placed once all its operands are; among placeable ops the one
/// whose operands are ready earliest goes first (ties: the algorithm's own `step`, then the
/// longest chain of transfers below, the smaller ring shift, op order).
/// Placing in order of readiness never delays an op placed earlier, so every op gets the
/// earliest rounds its dependencies and the ports allow in that order.
void CostBuilder::listSchedule() {
  Block &body = schedule_.getBodyBlock();
  llvm::DenseMap<Operation *, unsigned> pending, index;
  using Entry = std::tuple<int64_t, int64_t, int64_t, int, unsigned, Operation *>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  auto readiness = [&](Operation *op) {
    int64_t round = 0;
    for (Value v : op->getOperands()) round = std::max(round, values_[v].round);
    return round;
  };
  // Bottom level: transfers on the longest dataflow path from the op to the end. Ops that
  // head longer chains go first, as in classic critical-path list scheduling.
  llvm::DenseMap<Operation *, int64_t> bottomLevel;
  for (Operation &op : llvm::reverse(body)) {
    int64_t below = 0;
    for (Operation *user : op.getUsers()) below = std::max(below, bottomLevel.lookup(user));
    bool moves = isa<DupOp, ReduceSendOp>(op) ||
                 (isa<CopyOp>(op) && shiftOf(&op) != 0);
    bottomLevel[&op] = below + (moves ? 1 : 0);
  }
  auto push = [&](Operation *op, int64_t round) {
    int64_t step = stepOf(op);
    ready.push({round, step >= 0 ? step : INT64_MAX, -bottomLevel[op], shiftOf(op), index[op],
                op});
  };
  unsigned position = 0;
  for (Operation &op : body) {
    index[&op] = position++;
    unsigned count = op.getNumOperands();
    pending[&op] = count;
  }
  for (Operation &op : body)
    if (op.getNumOperands() == 0) push(&op, 0);
  while (!ready.empty()) {
    auto [readyRound, stepKey, negLevel, shift, position, op] = ready.top();
    ready.pop();
    place(op);
    // An op's round is when its first result is available (a dup's transfers spread over
    // several rounds): no consumer can be ready earlier, so rounds respect dataflow.
    int64_t round = op->getNumResults() ? INT64_MAX : readyRound;
    for (Value result : op->getResults()) round = std::min(round, values_[result].round);
    opRound_[op] = round;
    for (Value result : op->getResults())
      for (OpOperand &use : result.getUses()) {
        Operation *user = use.getOwner();
        if (--pending[user] == 0) push(user, std::max(readiness(user), holdOf(user)));
      }
  }
}

void CostBuilder::collectRuns() {
  auto moves = [&](const ValueState &v, int to, int64_t step) {
    if (v.rank != to && step >= 0) stepChunks_[{v.rank, to, step, v.slice}].insert(v.chunk);
  };
  auto inherit = [&](Value result, const ValueState &from) {
    values_[result].chunk = from.chunk;
    values_[result].slice = from.slice;
  };
  for (Operation &op : schedule_.getBodyBlock()) {
    const int64_t step = stepOf(&op);
    llvm::TypeSwitch<Operation *>(&op)
        .Case<InputOp>([&](InputOp in) {
          // Positions in the message: gathered inputs are numbered per rank (each rank's
          // chunk 0), so their position is the block they fill in the output.
          const bool gathered = spec_.kind == CollectiveKind::AllGather ||
                                spec_.kind == CollectiveKind::Gather;
          const int rank = int(in.getRank());
          values_[in.getResult()].chunk =
              (gathered ? int64_t(rank) * spec_.inputChunks(rank) : 0) + int64_t(in.getChunk());
          values_[in.getResult()].slice = int64_t(in.getSlice().value_or(0));
        })
        .Case<CopyOp>([&](CopyOp copy) {
          const ValueState src = values_[copy.getSrc()];
          moves(src, int(copy.getRank()), step);
          inherit(copy.getResult(), src);
          if (src.rank == int(copy.getRank()) && step >= 0)
            values_[copy.getResult()].chunk = packedPosition(src.rank, step);
        })
        .Case<DupOp>([&](DupOp dup) {
          const ValueState src = values_[dup.getSrc()];
          for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks())) {
            moves(src, int(rank), step);
            inherit(result, src);
          }
        })
        .Case<coll::ReduceOp>([&](coll::ReduceOp reduce) {
          for (Value v : reduce.getOperands()) moves(values_[v], int(reduce.getRank()), step);
          inherit(reduce.getResult(), values_[reduce.getOperand(0)]);
        })
        .Case<ReduceSendOp>([&](ReduceSendOp reduce) {
          for (Value v : reduce.getOperands()) moves(values_[v], int(reduce.getRank()), step);
          ValueState result = values_[reduce.getOperand(0)];
          result.rank = int(reduce.getRank());
          moves(result, int(reduce.getDest()), step);
          inherit(reduce.getResult(), result);
        })
        .Default([](Operation *) {});
  }
}

ScheduleCost CostBuilder::run() {
  for (Operation &op : schedule_.getBodyBlock()) countTouches(op);
  collectRuns();
  listSchedule();
  cost_.alphaRounds = ports_.rounds();
  cost_.beta = ports_.beta();
  cost_.bytesMoved = double(cost_.transfers) * cost_.unitFraction;  // every value is one unit
  computeScratch();
  return cost_;
}

/// Scratch: a value defined at rank R occupies a tmp unit from its definition to its last use,
/// unless it is an input (it lives in `in`) or is bound to an output at R (it lives in `out`).
void CostBuilder::computeScratch() {
  Block &body = schedule_.getBodyBlock();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : body) position[&op] = index++;

  // events[rank] = (position, +1 / -1)
  std::vector<std::vector<std::pair<int64_t, int>>> events(spec_.ranks);
  for (Operation &op : body) {
    if (isa<InputOp>(op)) continue;
    for (Value result : op.getResults()) {
      int rank = values_[result].rank;
      bool inOutput = llvm::any_of(result.getUsers(), [&](Operation *user) {
        auto out = dyn_cast<OutputOp>(user);
        return out && int(out.getRank()) == rank;
      });
      if (inOutput) continue;
      int64_t end = position[&op];
      for (Operation *user : result.getUsers()) end = std::max(end, position[user]);
      events[rank].push_back({position[&op], +1});
      events[rank].push_back({end, -1});
    }
  }
  for (int rank = 0; rank < spec_.ranks; ++rank) {
    auto &ev = events[rank];
    // At one position, count frees after allocations: a value dies after its last use.
    std::sort(ev.begin(), ev.end(), [](auto &a, auto &b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    int64_t live = 0, peak = 0;
    for (auto [pos, delta] : ev) peak = std::max(peak, live += delta);
    cost_.scratchUnits[rank] = peak;
  }
}

}  // namespace

int64_t ScheduleCost::totalTouches() const {
  int64_t total = 0;
  for (size_t r = 0; r < reads.size(); ++r) total += reads[r] + writes[r];
  return total;
}

int64_t ScheduleCost::peakScratchUnits() const {
  int64_t peak = 0;
  for (int64_t s : scratchUnits) peak = std::max(peak, s);
  return peak;
}

namespace {

/// List schedules after the first that may run to keep each message whole.
constexpr int kMaxSettleRuns = 8;

/// The list schedule with every message of several pieces leaving when its last piece is ready,
/// as the lowering meant it (one message per peer per step, as the textbook algorithms send):
/// placed by readiness, a piece that is ready early would otherwise leave alone, and the rest
/// follow as a second message (recursive doubling's partner of a folded rank holds its own
/// block a round before the one it received). Each run holds every message until its last
/// piece was ready in the run before (not in any earlier one: the split pieces of a first run
/// hold ports and make later pieces look late); holds move later pieces, so this repeats until
/// the holds equal the readiness they produce: no message splits and none waits longer than
/// its pieces (or kMaxSettleRuns).
std::shared_ptr<CostBuilder> settledSchedule(ScheduleOp schedule) {
  MessageFloors floors;
  auto builder = std::make_shared<CostBuilder>(schedule, floors);
  builder->run();
  if (!builder->splitMessages() && !builder->packsSentOn()) return builder;
  for (int run = 0; run < kMaxSettleRuns; ++run) {
    MessageFloors next = builder->pieceReadiness();
    if (next == floors) break;  // every message left right after its last piece was ready
    floors = std::move(next);
    builder = std::make_shared<CostBuilder>(schedule, floors);
    builder->run();
  }
  return builder;
}

/// What identifies a schedule's IR while it lives: its ops in order, each with its
/// discardable attributes (a uniqued, immutable dictionary: `step`, `channel`), a hash of its
/// inherent ones (properties) and its operands.
std::vector<const void *> irKey(ScheduleOp schedule) {
  std::vector<const void *> key;
  auto addOp = [&](Operation &op) {
    key.push_back(&op);
    key.push_back(op.getRawDictionaryAttrs().getAsOpaquePointer());
    key.push_back(reinterpret_cast<const void *>(size_t(op.hashProperties())));
    for (Value operand : op.getOperands()) key.push_back(operand.getAsOpaquePointer());
  };
  addOp(*schedule.getOperation());
  for (Operation &op : schedule.getBodyBlock()) addOp(op);
  return key;
}

}  // namespace

struct SettledScheduleReuse::State {
  std::vector<const void *> key;
  std::shared_ptr<CostBuilder> builder;
};

namespace {

thread_local SettledScheduleReuse::State *activeReuse = nullptr;

/// settledSchedule, computed once per unchanged IR while a SettledScheduleReuse lives: a
/// `keep` call leaves its result for the next call on the same IR, which takes it (the list
/// schedule's maps are large: they live no longer than that).
std::shared_ptr<CostBuilder> settledOnce(ScheduleOp schedule, bool keep) {
  if (!activeReuse) return settledSchedule(schedule);
  std::vector<const void *> key = irKey(schedule);
  std::shared_ptr<CostBuilder> builder = std::move(activeReuse->builder);
  if (!builder || activeReuse->key != key) builder = settledSchedule(schedule);
  activeReuse->key.clear();
  if (keep) {
    activeReuse->builder = builder;
    activeReuse->key = std::move(key);
  }
  return builder;
}

}  // namespace

SettledScheduleReuse::SettledScheduleReuse() : state_(new State), outer_(activeReuse) {
  activeReuse = state_;
}

SettledScheduleReuse::~SettledScheduleReuse() {
  activeReuse = outer_;
  delete state_;
}

ScheduleCost analyzeCost(ScheduleOp schedule) {
  return settledOnce(schedule, /*keep=*/true)->cost();
}

TransferRounds operandTransferRounds(ScheduleOp schedule) {
  return settledOnce(schedule, /*keep=*/false)->transferRounds();
}

/// A local copy whose result is sent to another rank: it packs blocks side by side.
static bool isPack(Operation *op) {
  auto copy = dyn_cast<CopyOp>(op);
  if (!copy || residentRank(copy.getSrc()) != int64_t(copy.getRank())) return false;
  return llvm::any_of(copy.getResult().getUsers(), [&](Operation *user) {
    auto send = dyn_cast<CopyOp>(user);
    return send && send.getRank() != copy.getRank();
  });
}

void assignSteps(ScheduleOp schedule) {
  Block &body = schedule.getBodyBlock();
  // Packs go last in their round: level 3 gives values units in program order, so a round's
  // packs then lie side by side, after what the round received.
  std::vector<std::tuple<int64_t, bool, Operation *>> order;
  if (schedule.getOwnSteps()) {
    // The algorithm's own steps; an op without one runs once its operands are there.
    llvm::DenseMap<Operation *, int64_t> stepOfOp;
    for (Operation &op : body) {
      int64_t step = stepOf(&op);
      if (step < 0) {
        step = 0;
        for (Value v : op.getOperands())
          if (Operation *def = v.getDefiningOp()) step = std::max(step, stepOfOp.lookup(def));
      }
      stepOfOp[&op] = step;
      order.push_back({step, isPack(&op), &op});
    }
  } else {
    const std::shared_ptr<CostBuilder> builder = settledSchedule(schedule);
    for (Operation &op : body) order.push_back({builder->roundOf(&op), isPack(&op), &op});
  }
  std::stable_sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  OpBuilder attrs(schedule.getContext());
  for (auto [round, pack, op] : order) {
    op->moveBefore(&body, body.end());
    if (!isa<InputOp, OutputOp>(op)) op->setAttr("step", attrs.getI64IntegerAttr(round));
  }
}

CostAnalysis::CostAnalysis(Operation *op) : cost_(analyzeCost(cast<ScheduleOp>(op))) {}

std::string formatCost(const ScheduleCost &cost, bool perRank) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto fraction = [&](double x) { return llvm::format("%.6g", x); };
  os << "  alpha rounds:     " << cost.alphaRounds << "\n";
  os << "  beta coefficient: " << fraction(cost.beta) << " (bytes on the critical path / M)\n";
  os << "  transfers:        " << cost.transfers << " moving " << fraction(cost.bytesMoved)
     << " M\n";
  if (cost.reads.empty()) return text;  // a composed plan's cost: its stages' sums alone
  int64_t minTouches = INT64_MAX, maxTouches = 0;
  for (size_t r = 0; r < cost.reads.size(); ++r) {
    minTouches = std::min(minTouches, cost.touches(int(r)));
    maxTouches = std::max(maxTouches, cost.touches(int(r)));
  }
  os << "  memory touches:   " << countNoun(cost.totalTouches(), "unit") << " in all, per rank "
     << minTouches
     << ".." << maxTouches << " (reads + writes)\n";
  os << "  peak scratch:     " << countNoun(cost.peakScratchUnits(), "unit") << " ("
     << fraction(cost.peakScratchUnits() * cost.unitFraction) << " M)\n";
  if (perRank)
    for (size_t r = 0; r < cost.reads.size(); ++r)
      os << "  rank " << r << ": reads " << cost.reads[r] << ", writes " << cost.writes[r]
         << ", scratch " << cost.scratchUnits[r] << "\n";
  return text;
}

}  // namespace collplan
