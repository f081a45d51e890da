// Layout of a plan for plan-view: op boxes by step or by simulated time, and transfer arrows.
#include "tools/plan-view/PlanDrawing.h"

#include "runtime/plan/BufRefText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
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

std::string tooltipOf(const PlanOp &op, int rank, int index) {
  std::string t = "rank " + std::to_string(rank) + " ops[" + std::to_string(index) + "]";
  if (op.step >= 0) t += " (step " + std::to_string(op.step) + ")";
  t += ": " + std::string(toString(op.kind));
  if (!op.srcs.empty()) t += "; src " + joinRefs(op.srcs);
  if (op.recv)
    t += "; recv #" + std::to_string(op.recv->id) + " from rank " + std::to_string(op.recv->peer);
  if (!op.dsts.empty()) t += "; dst " + joinRefs(op.dsts);
  for (const Endpoint &e : op.sends)
    t += "; send #" + std::to_string(e.id) + " to rank " + std::to_string(e.peer);
  t += "; " + std::to_string(op.length()) + " unit(s)";
  return t;
}

std::string formatUs(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us >= 100 ? "%.0f µs" : us >= 1 ? "%.2f µs" : "%.3f µs", us);
  return buf;
}

/// Boxes of every op shown, before positions: rank, op, class, texts.
OpBox makeBox(const Plan &plan, int rank, int index) {
  const PlanOp &op = plan.programs[size_t(rank)].ops[size_t(index)];
  OpBox b;
  b.rank = rank;
  b.op = index;
  b.reduces = op.numOperands() >= 2;
  b.duplicates = duplicates(op);
  b.cls = b.reduces ? OpClass::Reduce : b.duplicates ? OpClass::Duplicate : OpClass::Move;
  b.writes = int(op.sends.size() + op.dsts.size());
  b.kind = std::string(toString(op.kind));
  b.detail = detailOf(op);
  b.tooltip = tooltipOf(op, rank, index);
  return b;
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

/// Adds an arrow for every transfer whose both ends are shown; counts the others.
void addArrows(const Plan &plan, Drawing &d) {
  std::map<std::pair<int, int>, size_t> boxOf;  // (rank, op) -> box
  for (size_t i = 0; i < d.boxes.size(); ++i) boxOf[{d.boxes[i].rank, d.boxes[i].op}] = i;
  std::map<uint32_t, std::pair<int, int>> recvOf;  // transfer id -> receiving (rank, op)
  for (int r = 0; r < plan.ranks; ++r)
    for (size_t k = 0; k < plan.programs[size_t(r)].ops.size(); ++k)
      if (const auto &rv = plan.programs[size_t(r)].ops[k].recv) recvOf[rv->id] = {r, int(k)};
  for (int r = 0; r < plan.ranks; ++r)
    for (size_t k = 0; k < plan.programs[size_t(r)].ops.size(); ++k) {
      const PlanOp &op = plan.programs[size_t(r)].ops[k];
      for (const Endpoint &e : op.sends) {
        auto to = recvOf.find(e.id);
        if (to == recvOf.end()) continue;
        auto a = boxOf.find({r, int(k)}), b = boxOf.find(to->second);
        if (a == boxOf.end() || b == boxOf.end()) continue;
        Arrow arrow;
        arrow.from = a->second;
        arrow.to = b->second;
        arrow.id = e.id;
        arrow.units = op.length();
        arrow.tooltip = "transfer #" + std::to_string(e.id) + ": rank " + std::to_string(r) +
                        " ops[" + std::to_string(k) + "] → rank " +
                        std::to_string(to->second.first) + " ops[" +
                        std::to_string(to->second.second) + "], " +
                        (arrow.units ? std::to_string(arrow.units) + " unit(s)" : "token");
        d.arrows.push_back(arrow);
      }
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
  std::unordered_map<uint32_t, int> sendStep;
  for (const RankProgram &p : plan.programs)
    for (const PlanOp &op : p.ops) {
      if (op.step < 0) return false;
      for (const Endpoint &e : op.sends) sendStep[e.id] = op.step;
    }
  for (const RankProgram &p : plan.programs)
    for (const PlanOp &op : p.ops)
      if (op.recv) {
        auto it = sendStep.find(op.recv->id);
        if (it != sendStep.end() && it->second >= op.step) return false;
      }
  return true;
}

/// The as-soon-as-possible round of every op: one after the previous op of its rank and one
/// after the op that sends what it receives. Ops a deadlock would block (never in a loaded plan)
/// keep round -1 and are not drawn.
std::vector<std::vector<int>> asapRounds(const Plan &plan) {
  std::vector<std::vector<int>> round(plan.programs.size());
  for (size_t r = 0; r < plan.programs.size(); ++r) round[r].assign(plan.programs[r].ops.size(), -1);
  std::vector<size_t> next(plan.programs.size(), 0);
  std::unordered_map<uint32_t, int> sentAt;          // transfer id -> sender's round
  std::unordered_map<uint32_t, size_t> waitingRank;  // transfer id -> rank blocked on it
  std::vector<size_t> ready;
  for (size_t r = 0; r < plan.programs.size(); ++r) ready.push_back(r);
  while (!ready.empty()) {
    const size_t r = ready.back();
    ready.pop_back();
    const auto &ops = plan.programs[r].ops;
    for (; next[r] < ops.size(); ++next[r]) {
      const PlanOp &op = ops[next[r]];
      int at = next[r] > 0 ? round[r][next[r] - 1] + 1 : 0;
      if (op.recv) {
        auto it = sentAt.find(op.recv->id);
        if (it == sentAt.end()) {
          waitingRank[op.recv->id] = r;
          break;
        }
        at = std::max(at, it->second + 1);
      }
      round[r][next[r]] = at;
      for (const Endpoint &e : op.sends) {
        sentAt[e.id] = at;
        auto w = waitingRank.find(e.id);
        if (w != waitingRank.end()) {
          ready.push_back(w->second);
          waitingRank.erase(w);
        }
      }
    }
  }
  return round;
}

}  // namespace

Drawing layoutBySteps(const Plan &plan, const DrawingLimits &limits) {
  Drawing d;
  d.title = titleOf(plan);
  // Columns: the plan's steps when they order its transfers, else ASAP rounds.
  const bool useSteps = stepsOrderTransfers(plan);
  std::vector<std::vector<int>> column = asapRounds(plan);
  if (useSteps)
    for (size_t r = 0; r < column.size(); ++r)
      for (size_t k = 0; k < column[r].size(); ++k) column[r][k] = plan.programs[r].ops[k].step;
  d.subtitle = useSteps ? "columns: steps (PlanOp::step)"
                        : "columns: rounds (each op one after its rank's previous op and after the "
                          "op that sends to it; the plan's steps do not order its transfers)";
  d.ranksTotal = plan.ranks;
  d.ranksShown = std::min(plan.ranks, std::max(1, limits.maxRanks));
  int columns = 0;
  for (const std::vector<int> &c : column)
    for (int v : c) columns = std::max(columns, v + 1);
  d.framesTotal = columns;
  d.framesShown = std::min(columns, std::max(1, limits.maxSteps));
  for (int c = 0; c < d.framesShown; ++c)
    d.frameLabels.push_back((useSteps ? "step " : "round ") + std::to_string(c));
  d.xMax = d.framesShown;
  for (int r = 0; r < d.ranksShown; ++r) {
    const std::vector<int> &cols = column[size_t(r)];
    std::map<int, int> perColumn, seen;  // ops sharing a column split it evenly
    for (int col : cols) ++perColumn[col];
    for (size_t k = 0; k < cols.size(); ++k) {
      const int col = cols[k];
      if (col < 0 || col >= d.framesShown) continue;
      OpBox b = makeBox(plan, r, int(k));
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
  for (int r = 0; r < d.ranksShown; ++r) {
    const auto &timeline = sim.timelines[size_t(r)];
    for (size_t k = 0; k < timeline.size(); ++k) {
      const OpTiming &t = timeline[k];
      const int frame = int(std::lower_bound(frames.begin(), frames.end(), t.startUs - 1e-9) -
                            frames.begin());
      if (frame >= d.framesShown) continue;
      OpBox b = makeBox(plan, r, int(k));
      b.x0 = t.startUs;
      b.x1 = std::min(t.endUs, std::max(d.xMax, t.startUs));
      b.frame = frame;
      b.tooltip += "; start " + formatUs(t.startUs) + ", end " + formatUs(t.endUs);
      if (!std::isnan(t.dataReadyUs)) b.tooltip += ", data ready " + formatUs(t.dataReadyUs);
      d.boxes.push_back(std::move(b));
    }
  }
  setTruncation(d, "start times");
  addArrows(plan, d);
  return d;
}

}  // namespace collplan::view
