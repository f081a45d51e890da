// α-β rounds under the port model, bytes, memory touches and scratch of a coll.schedule.
#include "compiler/analysis/CostModel.h"

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// Assigns transfers to synchronous rounds where each rank has one send and one receive port.
class PortScheduler {
public:
  explicit PortScheduler(int ranks) : sendBusy_(ranks), recvBusy_(ranks) {}

  /// The earliest round after `ready` in which `from` can send and `to` can receive.
  int64_t place(int from, int to, int64_t ready, double size) {
    int64_t round = ready + 1;
    while (busy(sendBusy_[from], round) || busy(recvBusy_[to], round)) ++round;
    mark(sendBusy_[from], round);
    mark(recvBusy_[to], round);
    if (round >= int64_t(largest_.size())) largest_.resize(round + 1, 0.0);
    largest_[round] = std::max(largest_[round], size);
    return round;
  }
  int64_t rounds() const { return largest_.empty() ? 0 : int64_t(largest_.size()) - 1; }
  double beta() const {
    double sum = 0;
    for (double size : largest_) sum += size;
    return sum;
  }

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
};

struct ValueState {
  int rank = 0;
  int64_t round = 0;  ///< the round after which the value is available at `rank`
};

class CostBuilder {
public:
  explicit CostBuilder(ScheduleOp schedule)
      : schedule_(schedule), spec_(CollectiveSpec::fromOp(schedule)), ports_(spec_.ranks) {
    int units = spec_.units();
    cost_.unitFraction = units > 0 ? 1.0 / units : 0.0;
    cost_.reads.assign(spec_.ranks, 0);
    cost_.writes.assign(spec_.ranks, 0);
    cost_.scratchUnits.assign(spec_.ranks, 0);
  }

  ScheduleCost run();

private:
  /// Moves a value from `from` to `to`; returns the round it arrives in.
  int64_t transfer(int from, int to, int64_t ready) {
    if (from == to) return ready;
    ++cost_.transfers;
    cost_.bytesMoved += cost_.unitFraction;
    return ports_.place(from, to, ready, cost_.unitFraction);
  }
  /// Reads the operands of a reduction at `rank` (remote operands are transfers).
  int64_t readOperands(ValueRange operands, int rank) {
    int64_t ready = 0;
    for (Value v : operands) {
      ValueState s = values_[v];
      ++cost_.reads[s.rank];
      ready = std::max(ready, transfer(s.rank, rank, s.round));
    }
    return ready;
  }
  void computeScratch();

  ScheduleOp schedule_;
  CollectiveSpec spec_;
  PortScheduler ports_;
  ScheduleCost cost_;
  llvm::DenseMap<Value, ValueState> values_;
};

ScheduleCost CostBuilder::run() {
  for (Operation &op : schedule_.getBodyBlock()) {
    llvm::TypeSwitch<Operation *>(&op)
        .Case<InputOp>([&](InputOp in) { values_[in.getResult()] = {int(in.getRank()), 0}; })
        .Case<CopyOp>([&](CopyOp copy) {
          ValueState src = values_[copy.getSrc()];
          int to = int(copy.getRank());
          ++cost_.reads[src.rank];
          ++cost_.writes[to];
          values_[copy.getResult()] = {to, transfer(src.rank, to, src.round)};
        })
        .Case<DupOp>([&](DupOp dup) {
          ValueState src = values_[dup.getSrc()];
          ++cost_.reads[src.rank];
          for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks())) {
            ++cost_.writes[rank];
            values_[result] = {int(rank), transfer(src.rank, int(rank), src.round)};
          }
        })
        .Case<coll::ReduceOp>([&](coll::ReduceOp reduce) {
          int rank = int(reduce.getRank());
          int64_t ready = readOperands(reduce.getOperands(), rank);
          ++cost_.writes[rank];
          values_[reduce.getResult()] = {rank, ready};
        })
        .Case<ReduceSendOp>([&](ReduceSendOp reduce) {
          int rank = int(reduce.getRank()), dest = int(reduce.getDest());
          int64_t ready = readOperands(reduce.getOperands(), rank);
          ++cost_.writes[dest];
          values_[reduce.getResult()] = {dest, transfer(rank, dest, ready)};
        })
        .Default([](Operation *) {});
  }
  cost_.alphaRounds = ports_.rounds();
  cost_.beta = ports_.beta();
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

ScheduleCost analyzeCost(ScheduleOp schedule) { return CostBuilder(schedule).run(); }

CostAnalysis::CostAnalysis(Operation *op) : cost_(analyzeCost(cast<ScheduleOp>(op))) {}

std::string formatCost(const ScheduleCost &cost, bool perRank) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto fraction = [&](double x) { return llvm::format("%.6g", x); };
  os << "  alpha rounds:     " << cost.alphaRounds << "\n";
  os << "  beta coefficient: " << fraction(cost.beta) << " (bytes on the critical path / M)\n";
  os << "  transfers:        " << cost.transfers << " moving " << fraction(cost.bytesMoved)
     << " M\n";
  int64_t minTouches = INT64_MAX, maxTouches = 0;
  for (size_t r = 0; r < cost.reads.size(); ++r) {
    minTouches = std::min(minTouches, cost.touches(int(r)));
    maxTouches = std::max(maxTouches, cost.touches(int(r)));
  }
  if (cost.reads.empty()) minTouches = 0;
  os << "  memory touches:   " << cost.totalTouches() << " units in all, per rank " << minTouches
     << ".." << maxTouches << " (reads + writes)\n";
  os << "  peak scratch:     " << cost.peakScratchUnits() << " units ("
     << fraction(cost.peakScratchUnits() * cost.unitFraction) << " M)\n";
  if (perRank)
    for (size_t r = 0; r < cost.reads.size(); ++r)
      os << "  rank " << r << ": reads " << cost.reads[r] << ", writes " << cost.writes[r]
         << ", scratch " << cost.scratchUnits[r] << "\n";
  return text;
}

}  // namespace collplan
