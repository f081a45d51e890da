// PlanVerify: symbolic execution of a plan's channels, then the collective's specification
// checked on every output unit (see PlanVerify.h).
#include "runtime/plan/PlanVerify.h"

#include "runtime/core/Collective.h"
#include "runtime/plan/BufRefText.h"
#include "runtime/plan/PlanHazards.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/Transfers.h"
#include "runtime/plan/UnitSpace.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace collplan {
namespace {

/// A 64-bit key mixed (splitmix64), so packed keys with regular low bits spread over buckets.
struct MixedHash {
  size_t operator()(uint64_t x) const {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return size_t(x ^ (x >> 31));
  }
};

/// What a unit holds: 0 nothing yet; a leaf, one rank's input unit; or a reduction, the left
/// fold (a, b) of two earlier terms. Identical trees get identical ids (hash-consing), so two
/// units hold bitwise-identical results exactly when their ids are equal.
class Terms {
public:
  Terms(int ranks, uint32_t inUnits) : stride_(std::max<uint32_t>(inUnits, 1)) {
    leaves_ = uint64_t(ranks) * stride_;
  }

  uint32_t leaf(int rank, uint32_t unit) const { return uint32_t(1 + uint64_t(rank) * stride_ + unit); }
  bool isLeaf(uint32_t t) const { return t != 0 && t <= leaves_; }
  int leafRank(uint32_t t) const { return int((t - 1) / stride_); }
  uint32_t leafUnit(uint32_t t) const { return uint32_t((t - 1) % stride_); }

  /// The fold of `a` then `b` (0 when either is 0: its problem is reported where it was read).
  uint32_t combine(uint32_t a, uint32_t b) {
    if (a == 0 || b == 0) return 0;
    const uint64_t key = uint64_t(a) << 32 | b;
    auto [it, fresh] = index_.try_emplace(key, 0);
    if (fresh) {
      nodes_.push_back({a, b});
      it->second = uint32_t(leaves_ + nodes_.size());
    }
    return it->second;
  }

  /// Every leaf of `t`, in fold order.
  void leavesOf(uint32_t t, std::vector<uint32_t> &out) const {
    out.clear();
    std::vector<uint32_t> stack{t};
    while (!stack.empty()) {
      const uint32_t x = stack.back();
      stack.pop_back();
      if (isLeaf(x)) {
        out.push_back(x);
        continue;
      }
      const auto &[a, b] = nodes_[x - leaves_ - 1];
      stack.push_back(b);
      stack.push_back(a);
    }
  }

  /// The tree of `t` over ranks, the unit left out: "((0+1)+(2+3))" (the fold order),
  /// appended to `out` (linear in the tree's size).
  void appendRankTree(uint32_t t, std::string &out) const {
    if (isLeaf(t)) {
      out += std::to_string(leafRank(t));
      return;
    }
    const auto &[a, b] = nodes_[t - leaves_ - 1];
    out += '(';
    appendRankTree(a, out);
    out += '+';
    appendRankTree(b, out);
    out += ')';
  }
  std::string rankTree(uint32_t t) const {
    std::string tree;
    appendRankTree(t, tree);
    return tree;
  }

  /// The left fold of every rank's `unit` in rank order: (((0+1)+2)+...) as a term.
  uint32_t rankOrderFold(uint32_t unit, int ranks) {
    uint32_t t = leaf(0, unit);
    for (int r = 1; r < ranks; ++r) t = combine(t, leaf(r, unit));
    return t;
  }

  /// "in[3] of rank 1".
  std::string leafName(uint32_t t) const {
    return "in[" + std::to_string(leafUnit(t)) + "] of rank " + std::to_string(leafRank(t));
  }

private:
  uint32_t stride_;
  uint64_t leaves_;
  std::vector<std::pair<uint32_t, uint32_t>> nodes_;
  std::unordered_map<uint64_t, uint32_t> index_;  ///< identity hash: ids arrive in order, buckets stay near
};

/// The symbolic state of one rank: the term in every unit of its buffers, the op that last
/// wrote each `out` unit, and (barriers) which ranks its channels have heard from.
struct RankState {
  std::vector<uint32_t> in, out, tmp;
  std::vector<OpRef> outWriter;
  std::vector<std::vector<bool>> heard;  ///< per channel: ranks known to have arrived

  std::vector<uint32_t> &buffer(BufferKind buf) {
    return buf == BufferKind::In ? in : buf == BufferKind::Out ? out : tmp;
  }
};

/// The messages in flight on one (sender, receiver, channel), oldest first: their terms back to
/// back (no allocation per message) and, for barriers, the ranks each sender had heard from.
struct Fifo {
  std::deque<uint32_t> terms;
  std::deque<uint32_t> lengths;
  std::deque<std::vector<bool>> heard;
};

class SymbolicRun {
public:
  SymbolicRun(const Plan &plan, Terms &terms, std::vector<PlanProblem> &problems)
      : plan_(plan), terms_(terms), problems_(problems), ranks_(size_t(plan.ranks)),
        trackArrivals_(plan.collective == CollectiveKind::Barrier) {
    for (int r = 0; r < plan.ranks; ++r) {
      RankState &s = ranks_[size_t(r)];
      s.in.resize(bufferUnits(plan, BufferKind::In, r));
      for (uint32_t u = 0; u < s.in.size(); ++u) s.in[u] = terms.leaf(r, u);
      s.out.assign(bufferUnits(plan, BufferKind::Out, r), 0);
      s.outWriter.assign(s.out.size(), OpRef{UINT32_MAX, 0});
      s.tmp.assign(plan.scratchUnits, 0);
      if (!trackArrivals_) continue;
      s.heard.assign(plan.programs[size_t(r)].channels.size(), std::vector<bool>(size_t(plan.ranks)));
      for (auto &h : s.heard) h[size_t(r)] = true;
    }
  }

  /// Runs every channel until nothing can move; false (with a problem) when some channel is
  /// left unfinished, which validatePlan's deadlock check should have refused.
  bool run() {
    std::vector<std::vector<size_t>> next(ranks_.size());
    for (size_t r = 0; r < ranks_.size(); ++r)
      next[r].assign(plan_.programs[r].channels.size(), 0);
    for (bool moved = true; moved;) {
      moved = false;
      for (int r = 0; r < plan_.ranks; ++r) {
        const RankProgram &program = plan_.programs[size_t(r)];
        for (uint32_t c = 0; c < program.channels.size(); ++c)
          while (next[size_t(r)][c] < program.channels[c].ops.size() &&
                 ready(r, c, next[size_t(r)][c], next[size_t(r)])) {
            execute(r, c, next[size_t(r)][c]);
            ++next[size_t(r)][c];
            moved = true;
          }
      }
    }
    for (int r = 0; r < plan_.ranks; ++r)
      for (uint32_t c = 0; c < next[size_t(r)].size(); ++c)
        if (next[size_t(r)][c] < plan_.programs[size_t(r)].channels[c].ops.size()) {
          problems_.push_back({formatOpPath(r, c, next[size_t(r)][c]),
                               "never runs: the plan deadlocks (see its deadlock report)"});
          return false;
        }
    return true;
  }

  RankState &rank(int r) { return ranks_[size_t(r)]; }

private:
  uint64_t fifoKey(int sender, int receiver, uint32_t channel) const {
    return collplan::fifoKey(sender, receiver, channel, plan_.ranks);
  }

  bool ready(int r, uint32_t c, size_t i, const std::vector<size_t> &next) const {
    const PlanOp &op = plan_.programs[size_t(r)].channels[c].ops[i];
    for (const OpRef &a : op.after)
      if (next[a.channel] <= a.op) return false;
    if (op.recv) {
      auto it = fifos_.find(fifoKey(*op.recv, r, c));
      if (it == fifos_.end() || it->second.lengths.empty()) return false;
    }
    return true;
  }

  /// The terms of `ref` on rank `r` into `out`, reporting a read of a unit nothing wrote.
  void read(int r, uint32_t c, size_t i, const BufRef &ref, std::vector<uint32_t> &out) {
    const std::vector<uint32_t> &buf = ranks_[size_t(r)].buffer(ref.buf);
    out.assign(buf.begin() + ref.offset, buf.begin() + ref.offset + ref.length);
    for (uint32_t k = 0; k < ref.length && problems_.size() < kMaxProblems; ++k)
      if (out[k] == 0) {
        problems_.push_back({formatOpPath(r, c, i), "reads " + unitName(ref.buf, ref.offset + k) +
                                                  " of rank " + std::to_string(r) +
                                                  " before anything wrote it"});
        break;
      }
  }

  void execute(int r, uint32_t c, size_t i) {
    const PlanOp &op = plan_.programs[size_t(r)].channels[c].ops[i];
    RankState &state = ranks_[size_t(r)];
    // Operands in fold order (the received one at recvPos), into reused buffers.
    const size_t count = op.numOperands();
    if (operands_.size() < count) operands_.resize(count);
    const size_t recvAt = op.recv ? std::min<size_t>(op.recvPos, op.srcs.size()) : count;
    for (size_t k = 0, s = 0; k < count; ++k) {
      if (k == recvAt) continue;
      read(r, c, i, op.srcs[s++], operands_[k]);
    }
    if (trackArrivals_)
      for (const OpRef &a : op.after) merge(state.heard[c], state.heard[a.channel]);
    if (op.recv) {
      Fifo &fifo = fifos_[fifoKey(*op.recv, r, c)];
      const uint32_t length = fifo.lengths.front();
      fifo.lengths.pop_front();
      operands_[recvAt].assign(fifo.terms.begin(), fifo.terms.begin() + length);
      fifo.terms.erase(fifo.terms.begin(), fifo.terms.begin() + length);
      if (trackArrivals_) {
        merge(state.heard[c], fifo.heard.front());
        fifo.heard.pop_front();
      }
    }
    // The value: the left fold of the operands, unit by unit.
    value_.clear();
    if (count > 0) value_ = operands_[0];
    for (size_t j = 1; j < count; ++j)
      for (size_t k = 0; k < value_.size() && k < operands_[j].size(); ++k)
        value_[k] = terms_.combine(value_[k], operands_[j][k]);
    for (const BufRef &dst : op.dsts) {
      std::vector<uint32_t> &buf = state.buffer(dst.buf);
      for (uint32_t k = 0; k < dst.length && k < value_.size(); ++k) {
        buf[dst.offset + k] = value_[k];
        if (dst.buf == BufferKind::Out) state.outWriter[dst.offset + k] = OpRef{c, uint32_t(i)};
      }
    }
    for (int32_t peer : op.sends) {
      Fifo &fifo = fifos_[fifoKey(r, peer, c)];
      fifo.terms.insert(fifo.terms.end(), value_.begin(), value_.end());
      fifo.lengths.push_back(uint32_t(value_.size()));
      if (trackArrivals_) fifo.heard.push_back(state.heard[c]);
    }
  }

  static void merge(std::vector<bool> &into, const std::vector<bool> &from) {
    for (size_t k = 0; k < into.size() && k < from.size(); ++k) into[k] = into[k] || from[k];
  }

  const Plan &plan_;
  Terms &terms_;
  std::vector<PlanProblem> &problems_;
  std::vector<RankState> ranks_;
  std::unordered_map<uint64_t, Fifo, MixedHash> fifos_;
  std::vector<std::vector<uint32_t>> operands_;  ///< the current op's operands (reused)
  std::vector<uint32_t> value_;                  ///< the current op's value (reused)
  bool trackArrivals_;  ///< barriers: which ranks each channel has heard from
};

/// What the collective specifies for one output unit: the input unit `unit` of rank `from`, or
/// (reduce) of every rank.
struct Expected {
  bool reduced = false;
  int from = 0;
  uint32_t unit = 0;
};

/// The specification of output unit `u` of rank `r` (units per block `U`).
Expected expectedOut(const Plan &plan, int r, uint32_t u, uint32_t U) {
  const int root = plan.root;
  switch (plan.collective) {
  case CollectiveKind::AllReduce:
  case CollectiveKind::Reduce: return {true, 0, u};
  case CollectiveKind::ReduceScatter: return {true, 0, uint32_t(r) * U + u};
  case CollectiveKind::AllGather:
  case CollectiveKind::Gather: return {false, int(u / U), u % U};
  case CollectiveKind::AllToAll: return {false, int(u / U), uint32_t(r) * U + u % U};
  case CollectiveKind::Broadcast: return {false, root, u};
  case CollectiveKind::Scatter: return {false, root, uint32_t(r) * U + u};
  case CollectiveKind::Barrier: break;
  }
  return {};
}

/// An output unit of one rank and the op that last wrote it, named only when a problem is found.
struct OutSite {
  int rank = 0;
  uint32_t unit = 0;
  OpRef writer;

  std::string path() const {
    if (writer.channel == UINT32_MAX) return "programs[" + std::to_string(rank) + "]";
    return formatOpPath(rank, writer.channel, writer.op);
  }
  std::string name() const {
    return "out[" + std::to_string(unit) + "] of rank " + std::to_string(rank);
  }
};

class OutputCheck {
public:
  OutputCheck(const Plan &plan, Terms &terms, SymbolicRun &run, std::vector<PlanProblem> &problems,
              std::vector<ReductionOrder> *orders)
      : plan_(plan), terms_(terms), run_(run), problems_(problems), orders_(orders) {}

  void checkEveryRank() {
    const int blocks = messageBlocks(plan_.collective, plan_.ranks);
    const uint32_t U = blocks > 0 ? plan_.units / uint32_t(blocks) : 0;
    // Determinism: where several ranks hold the same reduced unit, the first rank's term.
    std::unordered_map<uint32_t, std::pair<int, uint32_t>> firstHolder;  // unit -> (rank, term)
    for (int r = 0; r < plan_.ranks; ++r) {
      RankState &state = run_.rank(r);
      for (uint32_t u = 0; u < state.out.size() && problems_.size() < kMaxProblems; ++u) {
        const OutSite site{r, u, state.outWriter[u]};
        const uint32_t term = state.out[u];
        const Expected want = expectedOut(plan_, r, u, U);
        if (term == 0) {
          report(site, "is never written (it should hold " + describe(want) + ")");
          continue;
        }
        if (!want.reduced) {
          checkCopy(site, term, want);
          continue;
        }
        if (!checkedSums_.count(term)) {
          if (!checkSum(site, term, want)) continue;
          if (orders_) recordOrder(site, term);
          if (plan_.rankOrderReductions) checkRankOrder(site, term, want);
        }
        checkedSums_.insert(term);
        if (plan_.collective != CollectiveKind::AllReduce) continue;
        auto [first, fresh] = firstHolder.try_emplace(u, r, term);
        if (!fresh && first->second.second != term)
          report(site, "is reduced in another order than on rank " +
                           std::to_string(first->second.first) +
                           " (same contributions, different fold): results may differ in the "
                           "last bits between ranks");
      }
    }
  }

  /// The first unit that breaks the plan's reduction_order "rank", reported only where the
  /// outputs are otherwise right.
  void reportRankOrder() {
    if (rankOrderProblem_ && problems_.empty()) problems_.push_back(*rankOrderProblem_);
  }

private:
  /// Keeps the rank tree of a proven reduced unit, once per distinct tree.
  void recordOrder(const OutSite &site, uint32_t term) {
    std::string tree = terms_.rankTree(term);
    if (seenTrees_.insert(tree).second) orders_->push_back({std::move(tree), site.rank, site.unit});
  }

  /// What reduction_order "rank" promises, compared as hash-consed terms: the first unit that
  /// folds otherwise is kept, and reported when nothing else is wrong.
  void checkRankOrder(const OutSite &site, uint32_t term, const Expected &want) {
    if (rankOrderProblem_ || term == terms_.rankOrderFold(want.unit, plan_.ranks)) return;
    rankOrderProblem_ = PlanProblem{
        "programs[" + std::to_string(site.rank) + "]",
        site.name() + " folds " + abbreviatedTree(terms_.rankTree(term)) +
            ", not in rank order as the plan's reduction_order \"rank\" promises"};
  }


  void report(const OutSite &site, const std::string &what) {
    problems_.push_back({site.path(), site.name() + " " + what});
  }

  std::string describe(const Expected &want) const {
    const std::string unit = "in[" + std::to_string(want.unit) + "]";
    if (want.reduced) return "the reduction of " + unit + " of every rank";
    return unit + " of rank " + std::to_string(want.from);
  }

  void checkCopy(const OutSite &site, uint32_t term, const Expected &want) {
    if (term == terms_.leaf(want.from, want.unit)) return;
    std::string holds;
    if (terms_.isLeaf(term)) {
      holds = terms_.leafName(term);
    } else {
      terms_.leavesOf(term, leaves_);
      holds = "a reduction of " + std::to_string(leaves_.size()) + " contributions";
    }
    report(site, "holds " + holds + " instead of " + describe(want));
  }

  /// Whether `term` holds every rank's `want.unit` exactly once and nothing else.
  bool checkSum(const OutSite &site, uint32_t term, const Expected &want) {
    terms_.leavesOf(term, leaves_);
    std::vector<int> count(size_t(plan_.ranks), 0);
    for (uint32_t leaf : leaves_) {
      if (terms_.leafUnit(leaf) != want.unit) {
        report(site, "holds " + terms_.leafName(leaf) +
                         ", which does not belong there (it should hold " + describe(want) + ")");
        return false;
      }
      ++count[size_t(terms_.leafRank(leaf))];
    }
    for (int s = 0; s < plan_.ranks; ++s) {
      const std::string contribution =
          "the contribution of in[" + std::to_string(want.unit) + "] of rank " + std::to_string(s);
      if (count[size_t(s)] == 0) {
        report(site, "lacks " + contribution);
        return false;
      }
      if (count[size_t(s)] > 1) {
        report(site, "counts " + contribution + " " + std::to_string(count[size_t(s)]) +
                         " times");
        return false;
      }
    }
    return true;
  }

  const Plan &plan_;
  Terms &terms_;
  SymbolicRun &run_;
  std::vector<PlanProblem> &problems_;
  std::vector<ReductionOrder> *orders_;       ///< distinct fold trees, when asked for
  std::unordered_set<std::string> seenTrees_; ///< the trees in orders_
  std::optional<PlanProblem> rankOrderProblem_;
  std::unordered_set<uint32_t> checkedSums_;  ///< reduced terms already proven
  std::vector<uint32_t> leaves_;
};

/// A barrier: every rank must have heard, through messages, from every rank before it is done.
void checkBarrier(const Plan &plan, SymbolicRun &run, std::vector<PlanProblem> &problems) {
  for (int r = 0; r < plan.ranks; ++r) {
    std::vector<bool> heard(size_t(plan.ranks), false);
    heard[size_t(r)] = true;
    for (const std::vector<bool> &channel : run.rank(r).heard)
      for (size_t s = 0; s < heard.size(); ++s) heard[s] = heard[s] || channel[s];
    for (int s = 0; s < plan.ranks; ++s)
      if (!heard[size_t(s)]) {
        problems.push_back({"programs[" + std::to_string(r) + "]",
                            "rank " + std::to_string(r) + " may leave the barrier before rank " +
                                std::to_string(s) + " arrives (no chain of messages from rank " +
                                std::to_string(s) + " reaches it)"});
        break;
      }
  }
}

}  // namespace

std::string VerifyResult::describe(size_t limit) const {
  std::string text;
  for (size_t k = 0; k < problems.size() && k < limit; ++k)
    text += (k ? "; " : "") + problems[k].path + ": " + problems[k].message;
  if (problems.size() > limit)
    text += "; and " + std::to_string(problems.size() - limit) + " more";
  return text;
}

std::string abbreviatedTree(const std::string &tree, size_t limit) {
  return tree.size() <= limit ? tree : tree.substr(0, limit) + "...";
}

std::string rankOrderTree(int ranks) {
  std::string tree = "0";
  for (int r = 1; r < ranks; ++r) tree = "(" + tree + "+" + std::to_string(r) + ")";
  return tree;
}

VerifyResult verifyPlan(const Plan &plan, std::vector<ReductionOrder> *orders) {
  VerifyResult result;
  uint32_t inUnits = 0;
  for (int r = 0; r < plan.ranks; ++r)
    inUnits = std::max(inUnits, bufferUnits(plan, BufferKind::In, r));
  checkChannelHazards(plan, result.problems);
  checkOperandOverlap(plan, result.problems);
  if (plan.inplaceSafe) checkInPlaceAliasing(plan, result.problems);
  Terms terms(plan.ranks, inUnits);
  SymbolicRun run(plan, terms, result.problems);
  if (!run.run()) return result;
  if (plan.collective == CollectiveKind::Barrier) {
    checkBarrier(plan, run, result.problems);
    return result;
  }
  OutputCheck check(plan, terms, run, result.problems, orders);
  check.checkEveryRank();
  check.reportRankOrder();
  return result;
}

}  // namespace collplan

namespace collplan {

std::optional<std::string> markRankOrder(Plan &plan) {
  if (!needsReduceOp(plan.collective)) return std::nullopt;  // nothing is reduced
  plan.rankOrderReductions = true;
  const VerifyResult proof = verifyPlan(plan);
  if (proof.ok()) return std::nullopt;
  plan.rankOrderReductions = false;
  return plan.algorithm + " does not reduce in rank order: " + proof.describe(1);
}

std::optional<std::string> firstPlanOutOfRankOrder(const Bundle &bundle) {
  for (size_t t = 0; t < bundle.tables.size(); ++t) {
    const BucketTable &table = bundle.tables[t];
    if (!needsReduceOp(table.collective)) continue;
    for (size_t b = 0; b < table.buckets.size(); ++b) {
      const Plan &plan = table.buckets[b].plan;
      if (plan.rankOrderReductions) continue;
      std::string what = std::string(toString(table.collective)) + " " +
                         std::string(toString(table.dtype));
      if (table.op) what += " " + std::string(toString(*table.op));
      return "tables[" + std::to_string(t) + "].buckets[" + std::to_string(b) + "].plan (" +
             what + ", " + plan.algorithm + ")";
    }
  }
  return std::nullopt;
}

}  // namespace collplan
