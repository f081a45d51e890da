// mscclXmlToPlan: runs an MSCCL algorithm's thread blocks symbolically and records each rank's
// steps per channel in the order they ran, as a collplan plan.
#include "runtime/interop/Imported.h"
#include "runtime/interop/MscclAlgo.h"
#include "runtime/interop/MscclXml.h"

#include "runtime/core/Files.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"

#include <algorithm>
#include <array>
#include <climits>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace collplan {

namespace {

/// Where a step's op landed: its collplan channel and index; nops land nowhere.
struct Placed {
  bool done = false;
  std::optional<OpRef> op;
};

/// The collplan op of one (non-nop) step of a thread block. `otherFirst`: the fold's second
/// operand (the received one, or `re`'s src) goes first (see Linearizer::otherFirst).
PlanOp stepOp(const MscclStep &s, const MscclThreadBlock &tb, bool otherFirst) {
  PlanOp op;
  const BufRef src{s.srcBuf, s.srcOff, s.cnt}, dst{s.dstBuf, s.dstOff, s.cnt};
  if (stepReadsSrc(s.type)) op.srcs.push_back(src);
  if (s.type == MscclStepType::Reduce)
    op.srcs.insert(otherFirst ? op.srcs.end() : op.srcs.begin(), dst);
  if (stepWritesDst(s.type)) op.dsts.push_back(dst);
  if (stepReceives(s.type)) {
    op.recv = tb.recv;
    op.recvPos = otherFirst ? 0 : uint32_t(op.srcs.size());
  }
  if (stepSends(s.type)) op.sends.push_back(tb.send);
  static const std::map<MscclStepType, OpKind> kinds{
      {MscclStepType::Send, OpKind::Send},
      {MscclStepType::Recv, OpKind::Recv},
      {MscclStepType::RecvCopySend, OpKind::RecvCopySend},
      {MscclStepType::RecvReduceSend, OpKind::RecvReduceSend},
      {MscclStepType::RecvReduceCopy, OpKind::RecvReduce},
      {MscclStepType::RecvReduceCopySend, OpKind::RecvReduceSend},
      {MscclStepType::Copy, OpKind::Copy},
      {MscclStepType::Reduce, OpKind::Reduce}};
  op.kind = kinds.at(s.type);
  return op;
}

/// The symbolic run: every thread block of every GPU runs its steps in order while their
/// dependency has run, their message has arrived and their send has room (kChannelDepth).
class Linearizer {
public:
  Linearizer(const MscclAlgo &algo, Plan &plan, const std::vector<uint32_t> &chanIndex)
      : algo_(algo), plan_(plan), chanIndex_(chanIndex) {
    for (size_t g = 0; g < algo.gpus.size(); ++g) {
      const MscclGpu &gpu = algo.gpus[g];
      const uint32_t shift = inputShift(int(g));
      contents_.push_back({std::vector<int>(gpu.inChunks, int(g)),
                           std::vector<int>(std::max(gpu.outChunks, shift + gpu.inChunks), INT_MAX),
                           std::vector<int>(gpu.scratchChunks, INT_MAX)});
      if (!algo.outofplace) addInPlacePrelude(int(g));
    }
    for (const MscclGpu &g : algo.gpus) {
      placed_.emplace_back();
      for (const MscclThreadBlock &tb : g.tbs) placed_.back().emplace_back(tb.steps.size());
      next_.emplace_back(g.tbs.size(), 0);
    }
  }

  /// Runs until nothing can run, in time linear in the steps: a thread block that cannot go on
  /// waits on what it needs (a step, a link) and is woken when that changes. Returns the first
  /// step that never ran, or nothing.
  std::optional<std::tuple<int, size_t, size_t>> run() {
    for (size_t g = algo_.gpus.size(); g-- > 0;)
      for (size_t t = algo_.gpus[g].tbs.size(); t-- > 0;) ready_.emplace_back(int(g), t);
    while (!ready_.empty()) {
      const auto [g, t] = ready_.back();
      ready_.pop_back();
      while (next_[size_t(g)][t] < algo_.gpus[size_t(g)].tbs[t].steps.size() && tryStep(g, t)) {}
    }
    for (size_t g = 0; g < algo_.gpus.size(); ++g)
      for (size_t t = 0; t < algo_.gpus[g].tbs.size(); ++t)
        if (next_[g][t] < algo_.gpus[g].tbs[t].steps.size())
          return std::make_tuple(int(g), t, next_[g][t]);
    return std::nullopt;
  }

private:
  using Link = std::tuple<int, int, uint32_t>; // sender, receiver, chan

  /// Where gpu g's input starts in its output in an in-place call, in units (NCCL's layout,
  /// which msccl-tools' in-place programs assume); 0 for out-of-place algorithms.
  uint32_t inputShift(int g) const {
    if (algo_.outofplace) return 0;
    const int blocks = messageBlocks(algo_.collective, int(algo_.gpus.size()));
    return uint32_t(inPlaceBlockShift(algo_.collective, 0, g)) *
           (algo_.chunksPerLoop / uint32_t(blocks));
  }

  /// An in-place-only algorithm reads its input from the output buffer: the plan first copies
  /// `in` there (a copy onto itself in an in-place call), and its `i` references become `o`.
  void addInPlacePrelude(int g) {
    const uint32_t units = bufferUnits(plan_, BufferKind::In, g);
    const uint32_t shift = inputShift(g);
    std::vector<int> &out = buffer(g, BufferKind::Out);
    std::fill(out.begin() + shift, out.begin() + shift + algo_.gpus[size_t(g)].inChunks, g);
    if (units == 0) return;
    PlanOp copy;
    copy.kind = OpKind::Copy;
    copy.srcs.push_back(BufRef{BufferKind::In, 0, units});
    copy.dsts.push_back(BufRef{BufferKind::Out, shift, units});
    plan_.programs[size_t(g)].channel(0).push_back(copy);
  }
  MscclStep mapped(int g, MscclStep s) const {
    if (algo_.outofplace) return s;
    if (s.srcBuf == BufferKind::In) s.srcBuf = BufferKind::Out, s.srcOff += inputShift(g);
    if (s.dstBuf == BufferKind::In) s.dstBuf = BufferKind::Out, s.dstOff += inputShift(g);
    return s;
  }

  bool tryStep(int g, size_t t) {
    const MscclThreadBlock &tb = algo_.gpus[size_t(g)].tbs[t];
    const MscclStep s = mapped(g, tb.steps[next_[size_t(g)][t]]);
    if (s.depTb >= 0 && !placed_[size_t(g)][size_t(s.depTb)][size_t(s.depStep)].done)
      return wait(stepWaiters_[{g, size_t(s.depTb)}], g, t);
    const Link in{tb.recv, g, tb.chan}, out{g, tb.send, tb.chan};
    if (stepReceives(s.type) && queued_[in].empty()) return wait(linkWaiters_[in], g, t);
    if (stepSends(s.type) && queued_[out].size() >= kChannelDepth)
      return wait(linkWaiters_[out], g, t);
    wake(stepWaiters_[{g, t}]);
    if (stepReceives(s.type)) wake(linkWaiters_[in]);
    if (stepSends(s.type)) wake(linkWaiters_[out]);
    Placed &p = placed_[size_t(g)][t][next_[size_t(g)][t]];
    p.done = true;
    if (s.type != MscclStepType::Nop) p.op = place(g, t, stepOp(s, tb, execute(g, tb, s)));
    ++next_[size_t(g)][t];
    return true;
  }

  using Waiters = std::vector<std::pair<int, size_t>>;
  bool wait(Waiters &waiters, int g, size_t t) {
    waiters.emplace_back(g, t);
    return false;
  }
  void wake(Waiters &waiters) {
    ready_.insert(ready_.end(), waiters.begin(), waiters.end());
    waiters.clear();
  }

  std::vector<int> &buffer(int g, BufferKind buf) { return contents_[size_t(g)][size_t(buf)]; }
  std::vector<int> read(int g, BufferKind buf, uint32_t off, uint32_t cnt) {
    const std::vector<int> &b = buffer(g, buf);
    return std::vector<int>(b.begin() + off, b.begin() + off + cnt);
  }

  /// Moves the step's values, each unit's value being the lowest rank whose contribution it
  /// holds. Returns whether its two-operand fold takes the other operand (received, or `re`'s
  /// src) first: the executor's binary operations are commutative bitwise (IEEE +, *, min,
  /// max), so operands are put in a canonical order, the lower rank first, under which the
  /// proof compares two ranks' folds as the executor computes them.
  bool execute(int g, const MscclThreadBlock &tb, const MscclStep &s) {
    std::vector<int> value, other;
    if (stepReadsSrc(s.type)) value = read(g, s.srcBuf, s.srcOff, s.cnt);
    if (s.type == MscclStepType::Reduce)
      other = std::exchange(value, read(g, s.dstBuf, s.dstOff, s.cnt));
    if (stepReceives(s.type)) {
      auto &queue = queued_[Link{tb.recv, g, tb.chan}];
      other = std::move(queue.front());
      queue.pop_front();
      other.resize(s.cnt, INT_MAX);  // a message of another length: validatePlan refuses it
    }
    const bool folds = !value.empty() && !other.empty();
    const bool otherFirst = folds && !other.empty() && other.front() < value.front();
    if (value.empty())
      value = other;
    else if (folds)
      for (size_t u = 0; u < value.size() && u < other.size(); ++u)
        value[u] = std::min(value[u], other[u]);
    if (stepWritesDst(s.type))
      std::copy(value.begin(), value.end(), buffer(g, s.dstBuf).begin() + s.dstOff);
    if (stepSends(s.type)) queued_[Link{g, tb.send, tb.chan}].push_back(value);
    return otherFirst;
  }

  OpRef place(int g, size_t t, PlanOp op) {
    const uint32_t c = chanIndex_[algo_.gpus[size_t(g)].tbs[t].chan];
    std::vector<PlanOp> &ops = plan_.programs[size_t(g)].channel(c);
    op.after = afterRefs(g, t, c);
    const bool afterPrelude =
        !algo_.outofplace && c != 0 && ops.empty() && bufferUnits(plan_, BufferKind::In, g) > 0;
    if (afterPrelude && (op.after.empty() || op.after.front().channel != 0))
      op.after.insert(op.after.begin(), OpRef{0, 0});
    ops.push_back(std::move(op));
    return OpRef{c, uint32_t(ops.size() - 1)};
  }

  /// The ops of other channels the step at next_[g][t] waited for: its dependency and those of
  /// the nops just before it, each standing for the step it names and everything before that
  /// step in its thread block. One reference per channel, the latest.
  std::vector<OpRef> afterRefs(int g, size_t t, uint32_t channel) {
    const auto &tbs = algo_.gpus[size_t(g)].tbs;
    std::vector<std::pair<size_t, size_t>> work; // (tb, step) whose completion was awaited
    for (size_t i = next_[size_t(g)][t] + 1; i-- > 0;) {
      const MscclStep &s = tbs[t].steps[i];
      if (i < next_[size_t(g)][t] && s.type != MscclStepType::Nop) break;
      if (s.depTb >= 0) work.emplace_back(size_t(s.depTb), size_t(s.depStep));
    }
    std::map<uint32_t, uint32_t> latest;
    std::set<std::pair<size_t, size_t>> visited;
    while (!work.empty()) {
      const auto [dt, ds] = work.back();
      work.pop_back();
      if (!visited.insert({dt, ds}).second) continue;
      const Placed &p = placed_[size_t(g)][dt][ds];
      if (p.op) {
        if (p.op->channel != channel)
          latest[p.op->channel] = std::max(latest[p.op->channel], p.op->op);
        continue;
      }
      const MscclStep &nop = tbs[dt].steps[ds];
      if (nop.depTb >= 0) work.emplace_back(size_t(nop.depTb), size_t(nop.depStep));
      if (ds > 0) work.emplace_back(dt, ds - 1);
    }
    std::vector<OpRef> refs;
    for (const auto &[c, op] : latest) refs.push_back(OpRef{c, op});
    return refs;
  }

  const MscclAlgo &algo_;
  Plan &plan_;
  const std::vector<uint32_t> &chanIndex_;
  std::vector<std::vector<std::vector<Placed>>> placed_; // [gpu][tb][step]
  std::vector<std::vector<size_t>> next_;                // [gpu][tb]
  std::map<Link, std::deque<std::vector<int>>> queued_;  // messages in flight, their values
  Waiters ready_;
  std::map<Link, Waiters> linkWaiters_; // waiting for a message or for room
  std::map<std::pair<int, size_t>, Waiters>
      stepWaiters_; // waiting for a step of (gpu, tb)  // messages in flight, their values
  std::vector<std::array<std::vector<int>, 3>> contents_; // [gpu][buffer][unit]
};

/// The chans any thread block uses, numbered densely so that every rank agrees.
std::vector<uint32_t> channelIndices(const MscclAlgo &algo) {
  std::vector<bool> used(algo.channels);
  for (const MscclGpu &g : algo.gpus)
    for (const MscclThreadBlock &tb : g.tbs) used[tb.chan] = true;
  std::vector<uint32_t> index(algo.channels);
  uint32_t next = 0;
  for (uint32_t c = 0; c < algo.channels; ++c) index[c] = used[c] ? next++ : 0;
  return index;
}

Plan planHeader(const MscclAlgo &algo, const std::string &origin) {
  if (!algo.outofplace && !algo.inplace)
    throw PlanError(origin, "<algo>", "the algorithm runs neither in place nor out of place");
  if (!algo.outofplace && algo.collective == CollectiveKind::ReduceScatter)
    throw PlanError(origin, "<algo>",
                    "an in-place-only reducescatter writes its result into its input, which "
                    "collplan plans only read: regenerate it out of place");
  Plan plan;
  plan.collective = algo.collective;
  plan.ranks = int(algo.gpus.size());
  if (needsReduceOp(algo.collective)) plan.op = ReduceOp::Sum;
  plan.algorithm = algo.name.empty() ? "msccl" : algo.name;
  plan.params = {{"msccl_proto", std::string(toString(algo.protocol))},
                 {"msccl_min_bytes", algo.minBytes},
                 {"msccl_max_bytes", algo.maxBytes}};
  plan.units = algo.chunksPerLoop;
  for (const MscclGpu &g : algo.gpus)
    plan.scratchUnits = std::max(plan.scratchUnits, g.scratchChunks);
  // An in-place-only algorithm is imported with a leading copy of the input into the output,
  // which an in-place call makes a copy onto itself.
  plan.inplaceSafe = algo.inplace;
  plan.programs.resize(algo.gpus.size());
  return plan;
}

} // namespace

Plan mscclXmlToPlan(std::string_view xml, const std::string &origin) {
  return importMscclXml(xml, origin).plan;
}

ImportedPlan importMscclXml(std::string_view xml, const std::string &origin) {
  const MscclAlgo algo = readMscclAlgo(xml, origin);
  ImportedPlan imported{planHeader(algo, origin), SizeRange{algo.minBytes, algo.maxBytes}};
  Plan &plan = imported.plan;
  const std::vector<uint32_t> chanIndex = channelIndices(algo);
  if (const auto stuck = Linearizer(algo, plan, chanIndex).run()) {
    const auto [g, t, s] = *stuck;
    const MscclStep &step = algo.gpus[size_t(g)].tbs[t].steps[s];
    throw PlanError(origin + ":" + std::to_string(step.line),
                    "<step s=\"" + std::to_string(s) + "\">",
                    "deadlock: gpu " + std::to_string(g) + " thread block " + std::to_string(t) +
                        " never runs this step (it waits for its dependency, a message, or "
                        "room to send, that never comes)");
  }
  proveImportedPlan(plan, origin);
  return imported;
}

FileVerification verifyMscclXmlFile(const std::string &path, const VerifyFileOptions &options) {
  try {
    return verifyPlanOf(path, mscclXmlToPlan(readWholeFile(path), path), options);
  } catch (const std::exception &e) {  // unreadable, malformed, invalid or not proven
    return FileVerification{path, 0, {{"", e.what()}}, {}};
  }
}

} // namespace collplan
