// Layout of a plan for plan-view: a lane per channel, op boxes by step or by simulated time,
// and transfer arrows.
#include "tools/plan-view/PlanDrawing.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/Transfers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

namespace collplan::view {
namespace {

std::string joinRefs(const std::vector<BufRef> &refs) {
  std::string s;
  for (const BufRef &r : refs) s += (s.empty() ? "" : ",") + formatBufRef(r);
  return s;
}

/// As the simulator counts duplication: a dup, or one value to several dsts or several sends.
bool duplicates(const PlanOp &op) {
  return op.kind == OpKind::Dup || op.sends.size() >= 2 || op.dsts.size() >= 2;
}

/// "in[1:2]+recv → out[1:2]", "recv → out[0:1],send".
std::string detailOf(const PlanOp &op) {
  if (op.length() == 0) return "token";
  std::string in = joinRefs(op.srcs);
  if (op.recv) in = in.empty() ? "recv" : in + (op.numOperands() >= 2 ? "+recv" : ",recv");
  std::string out = joinRefs(op.dsts);
  if (!op.sends.empty()) out += std::string(out.empty() ? "" : "+") + "send";
  if (op.sends.size() > 1) out += "×" + std::to_string(op.sends.size());
  return (in.empty() ? "token" : in) + " → " + (out.empty() ? "·" : out);
}

std::string opName(int rank, OpRef ref) {
  return "rank " + std::to_string(rank) + " channels[" + std::to_string(ref.channel) + "].ops[" +
         std::to_string(ref.op) + "]";
}

std::string tooltipOf(const PlanOp &op, int rank, OpRef ref) {
  std::string t = opName(rank, ref);
  if (op.step >= 0) t += " (step " + std::to_string(op.step) + ")";
  t += ": " + std::string(toString(op.kind));
  if (!op.srcs.empty()) t += "; src " + joinRefs(op.srcs);
  if (op.recv) t += "; recv from rank " + std::to_string(*op.recv);
  if (!op.dsts.empty()) t += "; dst " + joinRefs(op.dsts);
  for (int32_t peer : op.sends) t += "; send to rank " + std::to_string(peer);
  for (const OpRef &dep : op.after)
    t += "; after channels[" + std::to_string(dep.channel) + "].ops[" + std::to_string(dep.op) + "]";
  t += "; " + std::to_string(op.length()) + " unit(s)";
  return t;
}

std::string formatUs(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us >= 100 ? "%.0f µs" : us >= 1 ? "%.2f µs" : "%.3f µs", us);
  return buf;
}

const PlanOp &opAt(const Plan &plan, int rank, OpRef ref) {
  return plan.programs[size_t(rank)].channels[ref.channel].ops[ref.op];
}

/// Boxes of every op shown, before positions: rank, channel, op, class, texts.
OpBox makeBox(const Plan &plan, int rank, OpRef ref, int lane) {
  const PlanOp &op = opAt(plan, rank, ref);
  OpBox b;
  b.rank = rank;
  b.channel = int(ref.channel);
  b.op = int(ref.op);
  b.lane = lane;
  b.reduces = op.numOperands() >= 2;
  b.duplicates = duplicates(op);
  b.cls = b.reduces ? OpClass::Reduce : b.duplicates ? OpClass::Duplicate : OpClass::Move;
  b.writes = int(op.sends.size() + op.dsts.size());
  b.kind = std::string(toString(op.kind));
  b.detail = detailOf(op);
  b.tooltip = tooltipOf(op, rank, ref);
  return b;
}

/// The lanes of the ranks shown (one per channel, at least one per rank); returns the index of
/// each rank's first lane.
std::vector<int> addLanes(const Plan &plan, Drawing &d) {
  std::vector<int> first;
  for (int r = 0; r < d.ranksShown; ++r) {
    first.push_back(int(d.lanes.size()));
    const int channels = std::max<int>(1, int(plan.programs[size_t(r)].channels.size()));
    for (int c = 0; c < channels; ++c) d.lanes.push_back(Lane{r, c, channels});
  }
  return first;
}

/// Calls visit(rank, ref) for every op of every rank, channel by channel.
template <typename Visit>
void forEachOp(const Plan &plan, Visit &&visit) {
  for (int r = 0; r < plan.ranks; ++r) {
    const std::vector<Channel> &channels = plan.programs[size_t(r)].channels;
    for (uint32_t c = 0; c < channels.size(); ++c)
      for (uint32_t i = 0; i < channels[c].ops.size(); ++i) visit(r, OpRef{c, i});
  }
}

/// " channels=2 order=[0,2,1,3]": the parameters the plan records, so the title names them.
std::string paramsOf(const Plan &plan) {
  std::string text;
  if (plan.params.is_object())
    for (const auto &[key, value] : plan.params.items())
      text += " " + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  return text;
}

std::string titleOf(const Plan &plan) {
  std::string t = std::string(toString(plan.collective));
  if (plan.op) t += " (" + std::string(toString(*plan.op)) + ")";
  if (needsRoot(plan.collective)) t += " root " + std::to_string(plan.root);
  return t + " · " + plan.algorithm + paramsOf(plan) + " · " + std::to_string(plan.ranks) +
         " ranks · " + std::to_string(plan.units) + " units";
}

/// Adds an arrow for every transfer whose both ends are shown.
void addArrows(const Plan &plan, Drawing &d) {
  std::map<std::tuple<int, uint32_t, uint32_t>, size_t> boxOf;  // (rank, channel, op) -> box
  for (size_t i = 0; i < d.boxes.size(); ++i)
    boxOf[{d.boxes[i].rank, uint32_t(d.boxes[i].channel), uint32_t(d.boxes[i].op)}] = i;
  for (const PlanTransfer &t : planTransfers(plan)) {
    auto a = boxOf.find({t.sender, t.send.channel, t.send.op});
    auto b = boxOf.find({t.receiver, t.recv.channel, t.recv.op});
    if (a == boxOf.end() || b == boxOf.end()) continue;
    Arrow arrow;
    arrow.from = a->second;
    arrow.to = b->second;
    arrow.index = t.index;
    arrow.units = opAt(plan, t.sender, t.send).length();
    arrow.tooltip = "message " + std::to_string(t.index) + " from rank " +
                    std::to_string(t.sender) + " to rank " + std::to_string(t.receiver) +
                    " on channel " + std::to_string(t.channel) + ": " +
                    opName(t.sender, t.send) + " → " + opName(t.receiver, t.recv) + ", " +
                    (arrow.units ? std::to_string(arrow.units) + " unit(s)" : "token");
    d.arrows.push_back(arrow);
  }
}

void setTruncation(Drawing &d, const char *frameWord) {
  std::string t;
  if (d.ranksShown < d.ranksTotal)
    t += "ranks 0–" + std::to_string(d.ranksShown - 1) + " of " + std::to_string(d.ranksTotal);
  if (d.framesShown < d.framesTotal)
    t += std::string(t.empty() ? "" : ", ") + frameWord + " 0–" +
         std::to_string(d.framesShown - 1) + " of " + std::to_string(d.framesTotal);
  if (!t.empty())
    d.truncation = "Showing " + t + " (raise --max-ranks / --max-steps to see more)";
}

/// Whether every op has a step and every transfer goes to a later step than its sender's.
bool stepsOrderTransfers(const Plan &plan) {
  bool allSteps = true;
  forEachOp(plan, [&](int r, OpRef ref) { allSteps = allSteps && opAt(plan, r, ref).step >= 0; });
  if (!allSteps) return false;
  for (const PlanTransfer &t : planTransfers(plan))
    if (opAt(plan, t.sender, t.send).step >= opAt(plan, t.receiver, t.recv).step) return false;
  return true;
}

/// The as-soon-as-possible round of every op ([rank][channel][op]): one after the previous op
/// of its channel, the ops it waits for on other channels, and the op that sends what it
/// receives. Ops a deadlock would block (never in a loaded plan) keep round -1 and are not drawn.
std::vector<std::vector<std::vector<int>>> asapRounds(const Plan &plan) {
  std::vector<std::vector<std::vector<int>>> round(plan.programs.size());
  std::map<std::tuple<int, uint32_t, uint32_t>, std::vector<std::tuple<int, uint32_t, uint32_t>>>
      senders;  // receiving op -> its sending op
  for (const PlanTransfer &t : planTransfers(plan))
    senders[{t.receiver, t.recv.channel, t.recv.op}].push_back({t.sender, t.send.channel, t.send.op});
  for (size_t r = 0; r < plan.programs.size(); ++r)
    for (const Channel &c : plan.programs[r].channels) round[r].emplace_back(c.ops.size(), -1);
  // Relax until nothing changes: rounds only grow, and a deadlock-free plan settles within as
  // many sweeps as its longest chain.
  for (bool changed = true; changed;) {
    changed = false;
    forEachOp(plan, [&](int r, OpRef ref) {
      const PlanOp &op = opAt(plan, r, ref);
      int at = ref.op > 0 ? round[r][ref.channel][ref.op - 1] + 1 : 0;
      if (ref.op > 0 && round[r][ref.channel][ref.op - 1] < 0) return;
      for (const OpRef &dep : op.after) {
        const int before = round[r][dep.channel][dep.op];
        if (before < 0) return;
        at = std::max(at, before + 1);
      }
      if (op.recv) {
        auto it = senders.find({r, ref.channel, ref.op});
        if (it == senders.end()) return;
        const auto [sr, sc, so] = it->second.front();
        if (round[size_t(sr)][sc][so] < 0) return;
        at = std::max(at, round[size_t(sr)][sc][so] + 1);
      }
      if (round[r][ref.channel][ref.op] != at) {
        round[r][ref.channel][ref.op] = at;
        changed = true;
      }
    });
  }
  return round;
}

}  // namespace

Drawing layoutBySteps(const Plan &plan, const DrawingLimits &limits) {
  Drawing d;
  d.title = titleOf(plan);
  // Columns: the plan's steps when they order its transfers, else ASAP rounds.
  const bool useSteps = stepsOrderTransfers(plan);
  std::vector<std::vector<std::vector<int>>> column = asapRounds(plan);
  if (useSteps)
    forEachOp(plan, [&](int r, OpRef ref) {
      column[size_t(r)][ref.channel][ref.op] = opAt(plan, r, ref).step;
    });
  d.subtitle = useSteps ? "columns: steps (PlanOp::step); one row per channel"
                        : "columns: rounds (each op one after its channel's previous op, the ops "
                          "it waits for and the op that sends to it; the plan's steps do not "
                          "order its transfers); one row per channel";
  d.ranksTotal = plan.ranks;
  d.ranksShown = std::min(plan.ranks, std::max(1, limits.maxRanks));
  int columns = 0;
  for (const auto &rank : column)
    for (const std::vector<int> &c : rank)
      for (int v : c) columns = std::max(columns, v + 1);
  d.framesTotal = columns;
  d.framesShown = std::min(columns, std::max(1, limits.maxSteps));
  for (int c = 0; c < d.framesShown; ++c)
    d.frameLabels.push_back((useSteps ? "step " : "round ") + std::to_string(c));
  d.xMax = d.framesShown;
  const std::vector<int> firstLane = addLanes(plan, d);
  for (int r = 0; r < d.ranksShown; ++r)
    for (uint32_t c = 0; c < column[size_t(r)].size(); ++c) {
      const std::vector<int> &cols = column[size_t(r)][c];
      std::map<int, int> perColumn, seen;  // ops sharing a column split it evenly
      for (int col : cols) ++perColumn[col];
      for (size_t k = 0; k < cols.size(); ++k) {
        const int col = cols[k];
        if (col < 0 || col >= d.framesShown) continue;
        OpBox b = makeBox(plan, r, OpRef{c, uint32_t(k)}, firstLane[size_t(r)] + int(c));
        const double share = 1.0 / perColumn[col];
        b.x0 = col + share * seen[col]++;
        b.x1 = b.x0 + share;
        b.frame = col;
        d.boxes.push_back(std::move(b));
      }
    }
  setTruncation(d, "steps");
  addArrows(plan, d);
  return d;
}

Drawing layoutByTime(const Plan &plan, const SimResult &sim, const std::string &what,
                     const DrawingLimits &limits) {
  Drawing d;
  d.title = titleOf(plan);
  d.timeAxis = true;
  d.subtitle = "x: simulated time on " + what + ", total " + formatUs(sim.totalUs);
  d.ranksTotal = plan.ranks;
  d.ranksShown = std::min(plan.ranks, std::max(1, limits.maxRanks));
  // Frames: the distinct start times (to 1e-9 µs), in order.
  std::vector<double> starts;
  for (const auto &timeline : sim.timelines)
    for (const OpTiming &t : timeline) starts.push_back(t.startUs);
  std::sort(starts.begin(), starts.end());
  std::vector<double> frames;
  for (double s : starts)
    if (frames.empty() || s - frames.back() > 1e-9) frames.push_back(s);
  d.framesTotal = int(frames.size());
  d.framesShown = std::min(d.framesTotal, std::max(1, limits.maxSteps));
  for (int f = 0; f < d.framesShown; ++f) d.frameLabels.push_back("t = " + formatUs(frames[size_t(f)]));
  d.xMax = sim.totalUs;
  if (d.framesShown < d.framesTotal) {  // the drawing ends where the first hidden frame starts
    d.xMax = frames[size_t(d.framesShown)];
    d.subtitle += "; drawn up to " + formatUs(d.xMax);
  }
  const std::vector<int> firstLane = addLanes(plan, d);
  forEachOp(plan, [&](int r, OpRef ref) {
    if (r >= d.ranksShown) return;
    {
      const OpTiming &t = sim.timing(plan, r, ref);
      const int frame = int(std::lower_bound(frames.begin(), frames.end(), t.startUs - 1e-9) -
                            frames.begin());
      if (frame >= d.framesShown) return;
      OpBox b = makeBox(plan, r, ref, firstLane[size_t(r)] + int(ref.channel));
      b.x0 = t.startUs;
      b.x1 = std::min(t.endUs, std::max(d.xMax, t.startUs));
      b.frame = frame;
      b.tooltip += "; start " + formatUs(t.startUs) + ", end " + formatUs(t.endUs);
      if (!std::isnan(t.dataReadyUs)) b.tooltip += ", data ready " + formatUs(t.dataReadyUs);
      d.boxes.push_back(std::move(b));
    }
  });
  setTruncation(d, "start times");
  addArrows(plan, d);
  return d;
}

}  // namespace collplan::view
