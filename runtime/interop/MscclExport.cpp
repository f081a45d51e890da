// planToMscclXml: a plan's channels as MSCCL thread blocks of steps with dependencies.
#include "runtime/interop/MscclModel.h"
#include "runtime/interop/MscclXml.h"

#include "runtime/plan/PlanValidate.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace collplan {

std::string_view toString(MscclProtocol protocol) {
  switch (protocol) {
  case MscclProtocol::Simple: return "Simple";
  case MscclProtocol::LL: return "LL";
  case MscclProtocol::LL128: return "LL128";
  }
  return "?";
}

std::optional<MscclProtocol> parseMscclProtocol(std::string_view name) {
  for (MscclProtocol p : {MscclProtocol::Simple, MscclProtocol::LL, MscclProtocol::LL128})
    if (toString(p) == name) return p;
  return std::nullopt;
}

namespace {

/// One step before thread blocks are numbered: deps are indices into the rank's step list.
struct ProtoStep {
  MscclStepType type = MscclStepType::Nop;
  std::optional<BufRef> src, dst;
  int send = -1, recv = -1;
  std::vector<size_t> deps;
  size_t tb = 0;
  uint32_t index = 0; ///< `s`: position in its thread block, nops included
  bool hasDep = false;
};

struct ThreadBlock {
  int send = -1, recv = -1;
  uint32_t chan = 0;
  std::vector<size_t> steps;
  uint32_t length = 0; ///< steps including the nops that carry extra dependencies
};

/// Names the op an error is about: "rank 2 channel 0 op 5 (recv_reduce_send)".
struct OpContext {
  int rank;
  uint32_t channel, op;
  const PlanOp &planOp;

  [[noreturn]] void fail(const std::string &reason) const {
    throw std::invalid_argument("MSCCL export: rank " + std::to_string(rank) + " channel " +
                                std::to_string(channel) + " op " + std::to_string(op) + " (" +
                                std::string(toString(planOp.kind)) + "): " + reason);
  }
};

ProtoStep step(MscclStepType type, std::optional<BufRef> src, std::optional<BufRef> dst,
               int send = -1, int recv = -1) {
  ProtoStep s;
  s.type = type;
  s.src = src;
  s.dst = dst;
  s.send = send;
  s.recv = recv;
  return s;
}

/// The first step of an op that receives: r, rcs, rrc, rrs or rrcs.
ProtoStep receiveStep(const PlanOp &op, const OpContext &ctx) {
  if (op.srcs.size() > 1)
    ctx.fail("reduces the received value with " + std::to_string(op.srcs.size()) +
             " local operands; MSCCL's receive steps fold one");
  const int peer = op.sends.empty() ? -1 : op.sends.front();
  const std::optional<BufRef> dst =
      op.dsts.empty() ? std::nullopt : std::optional<BufRef>(op.dsts.front());
  if (!dst && op.sends.size() != 1)
    ctx.fail("forwards a received value to " + std::to_string(op.sends.size()) +
             " peers without storing it; MSCCL sends from a buffer");
  if (op.srcs.empty())
    return step(peer < 0 ? MscclStepType::Recv : MscclStepType::RecvCopySend, std::nullopt, dst,
                peer, *op.recv);
  const BufRef src = op.srcs.front();
  if (!dst) return step(MscclStepType::RecvReduceSend, src, std::nullopt, peer, *op.recv);
  return step(peer < 0 ? MscclStepType::RecvReduceCopy : MscclStepType::RecvReduceCopySend, src,
              dst, peer, *op.recv);
}

/// A local reduce: `re` steps folding into the destination, after a copy of the first operand
/// when the destination is not that operand.
void appendReduceSteps(const PlanOp &op, const OpContext &ctx, std::vector<ProtoStep> &out) {
  const BufRef d = op.dsts.front();
  if (!(d == op.srcs.front())) {
    for (const BufRef &s : op.srcs)
      if (rangesOverlap(d, s, 0, false))
        ctx.fail("writes its destination over an operand other than the first; MSCCL's re "
                 "steps fold into the destination");
    out.push_back(step(MscclStepType::Copy, op.srcs.front(), d));
  }
  for (size_t i = 1; i < op.srcs.size(); ++i)
    out.push_back(step(MscclStepType::Reduce, op.srcs[i], d));
}

/// The steps of one op, in the order they run.
std::vector<ProtoStep> expandOp(const PlanOp &op, const OpContext &ctx) {
  std::vector<ProtoStep> out;
  if (op.length() == 0) ctx.fail("moves no units (a token); MSCCL steps move chunks");
  if (op.length() >= kMscclMaxCount)
    ctx.fail("moves " + std::to_string(op.length()) + " units in one step; MSCCL steps move " +
             "fewer than " + std::to_string(kMscclMaxCount) + " chunks");
  if (op.numOperands() > 1 && !op.recv) {
    appendReduceSteps(op, ctx, out);
    return out;
  }
  size_t firstDst = 0, firstSend = 0;
  BufRef home;
  if (op.recv) {
    out.push_back(receiveStep(op, ctx));
    firstDst = op.dsts.empty() ? 0 : 1;
    firstSend = op.sends.empty() ? 0 : 1;
    home = op.dsts.empty() ? BufRef{} : op.dsts.front();
  } else {
    home = op.srcs.front();
  }
  for (size_t i = firstDst; i < op.dsts.size(); ++i)
    out.push_back(step(MscclStepType::Copy, home, op.dsts[i]));
  for (size_t i = firstSend; i < op.sends.size(); ++i)
    out.push_back(step(MscclStepType::Send, home, std::nullopt, op.sends[i]));
  return out;
}

/// Per rank: the steps, their thread blocks, and each op's step range [first, last].
struct RankSteps {
  std::vector<ProtoStep> steps;
  std::vector<ThreadBlock> tbs;
  std::vector<std::vector<std::pair<size_t, size_t>>> opSteps;
};

/// The thread block of channel `chan` for a step, made or widened as needed. An MSCCL channel
/// has one thread block per send peer and per receive peer (each owns that connection).
size_t threadBlockFor(RankSteps &rs, size_t firstTb, uint32_t chan, const ProtoStep &s,
                      std::optional<size_t> previous, const OpContext &ctx) {
  std::optional<size_t> bySend, byRecv;
  for (size_t t = firstTb; t < rs.tbs.size(); ++t) {
    if (s.send >= 0 && rs.tbs[t].send == s.send) bySend = t;
    if (s.recv >= 0 && rs.tbs[t].recv == s.recv) byRecv = t;
  }
  if (bySend && byRecv && *bySend != *byRecv)
    ctx.fail("needs one thread block sending to " + std::to_string(s.send) + " and receiving " +
             "from " + std::to_string(s.recv) + ", but channel " + std::to_string(chan) +
             " has them in two (MSCCL: one thread block per peer and channel)");
  std::optional<size_t> chosen = bySend ? bySend : byRecv;
  auto fits = [&](size_t t) {
    return (s.send < 0 || rs.tbs[t].send < 0 || rs.tbs[t].send == s.send) &&
           (s.recv < 0 || rs.tbs[t].recv < 0 || rs.tbs[t].recv == s.recv);
  };
  if (chosen && !fits(*chosen))
    ctx.fail("needs one thread block sending to " + std::to_string(s.send) + " and receiving " +
             "from " + std::to_string(s.recv) + ", but channel " + std::to_string(chan) +
             "'s thread block for one of them has another peer for the other (MSCCL: one "
             "thread block per peer and channel)");
  if (!chosen && previous && fits(*previous)) chosen = previous;
  for (size_t t = firstTb; !chosen && t < rs.tbs.size(); ++t)
    if (fits(t)) chosen = t;
  if (!chosen) {
    rs.tbs.push_back(ThreadBlock{-1, -1, chan, {}, 0});
    chosen = rs.tbs.size() - 1;
  }
  ThreadBlock &tb = rs.tbs[*chosen];
  if (s.send >= 0) tb.send = s.send;
  if (s.recv >= 0) tb.recv = s.recv;
  return *chosen;
}

/// Expands every op of a rank, places the steps in thread blocks and chains program order.
RankSteps buildRankSteps(const RankProgram &program, int rank) {
  RankSteps rs;
  for (uint32_t c = 0; c < program.channels.size(); ++c) {
    const size_t firstTb = rs.tbs.size();
    std::optional<size_t> previous; // the channel's previous step
    rs.opSteps.emplace_back();
    for (uint32_t i = 0; i < program.channels[c].ops.size(); ++i) {
      const OpContext ctx{rank, c, i, program.channels[c].ops[i]};
      const size_t first = rs.steps.size();
      for (ProtoStep &s : expandOp(ctx.planOp, ctx)) {
        s.tb = threadBlockFor(
            rs, firstTb, c, s,
            previous ? std::optional<size_t>(rs.steps[*previous].tb) : std::nullopt, ctx);
        if (previous && rs.steps[*previous].tb != s.tb) s.deps.push_back(*previous);
        previous = rs.steps.size();
        rs.tbs[s.tb].steps.push_back(rs.steps.size());
        rs.steps.push_back(std::move(s));
      }
      rs.opSteps.back().emplace_back(first, rs.steps.size() - 1);
    }
  }
  return rs;
}

/// `after` references become dependencies of an op's first step on the last step of the op
/// it names; then each thread block numbers its steps, a nop before a step per extra dependency.
void addAfterAndNumber(const RankProgram &program, RankSteps &rs) {
  for (uint32_t c = 0; c < program.channels.size(); ++c)
    for (uint32_t i = 0; i < program.channels[c].ops.size(); ++i)
      for (const OpRef &a : program.channels[c].ops[i].after)
        rs.steps[rs.opSteps[c][i].first].deps.push_back(rs.opSteps[a.channel][a.op].second);
  for (ThreadBlock &tb : rs.tbs)
    for (size_t id : tb.steps) {
      ProtoStep &s = rs.steps[id];
      tb.length += s.deps.empty() ? 0 : uint32_t(s.deps.size() - 1);
      s.index = tb.length++;
      for (size_t d : s.deps) rs.steps[d].hasDep = true;
    }
}

std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

void writeStep(std::ostream &os, uint32_t index, MscclStepType type,
               const std::optional<BufRef> &src, const std::optional<BufRef> &dst, int depTb,
               int depStep, bool hasDep) {
  const uint32_t cnt = src ? src->length : dst ? dst->length : 0;
  os << "      <step s=\"" << index << "\" type=\"" << toString(type) << "\" srcbuf=\""
     << mscclBufferName(src ? src->buf : BufferKind::In) << "\" srcoff=\""
     << (src ? int64_t(src->offset) : -1) << "\" dstbuf=\""
     << mscclBufferName(dst ? dst->buf : BufferKind::Out) << "\" dstoff=\""
     << (dst ? int64_t(dst->offset) : -1) << "\" cnt=\"" << cnt << "\" depid=\"" << depTb
     << "\" deps=\"" << depStep << "\" hasdep=\"" << (hasDep ? 1 : 0) << "\"/>\n";
}

void writeThreadBlock(std::ostream &os, const RankSteps &rs, size_t t) {
  const ThreadBlock &tb = rs.tbs[t];
  os << "    <tb id=\"" << t << "\" send=\"" << tb.send << "\" recv=\"" << tb.recv << "\" chan=\""
     << tb.chan << "\">\n";
  uint32_t index = 0;
  for (size_t id : tb.steps) {
    const ProtoStep &s = rs.steps[id];
    for (size_t k = 1; k < s.deps.size(); ++k) {
      const ProtoStep &d = rs.steps[s.deps[k]];
      writeStep(os, index++, MscclStepType::Nop, std::nullopt, std::nullopt, int(d.tb),
                int(d.index), false);
    }
    const ProtoStep *d = s.deps.empty() ? nullptr : &rs.steps[s.deps.front()];
    writeStep(os, index++, s.type, s.src, s.dst, d ? int(d->tb) : -1, d ? int(d->index) : -1,
              s.hasDep);
  }
  os << "    </tb>\n";
}

void checkCollective(const Plan &plan) {
  if (plan.onlyRank >= 0)
    throw std::invalid_argument("MSCCL export: the plan holds rank " +
                                std::to_string(plan.onlyRank) + "'s program only");
  if (needsRoot(plan.collective))
    throw std::invalid_argument("MSCCL export: " + std::string(toString(plan.collective)) +
                                " is rooted, and MSCCL XML has no root: the executor would run "
                                "the algorithm for every root");
  if (!mscclCollectiveName(plan.collective))
    throw std::invalid_argument("MSCCL export: MSCCL XML has no collective for " +
                                std::string(toString(plan.collective)));
}

} // namespace

std::string planToMscclXml(const Plan &plan, const MscclExportOptions &options) {
  checkCollective(plan);
  const uint64_t largest = uint64_t(std::numeric_limits<int64_t>::max());
  if (options.minBytes > largest || options.minBytes > options.maxBytes)
    throw std::invalid_argument("MSCCL export: the size range " + std::to_string(options.minBytes) +
                                ".." + std::to_string(options.maxBytes) +
                                " bytes cannot be written: the executor reads minBytes and "
                                "maxBytes as int64, minBytes at most maxBytes");
  validatePlan(plan, "<plan>");
  std::vector<RankSteps> ranks;
  size_t channels = 1;
  for (int r = 0; r < plan.ranks; ++r) {
    ranks.push_back(buildRankSteps(plan.programs[r], r));
    addAfterAndNumber(plan.programs[r], ranks.back());
    channels = std::max(channels, plan.programs[r].channels.size());
    for (size_t t = 0; t < ranks.back().tbs.size(); ++t)
      if (ranks.back().tbs[t].length > options.maxStepsPerThreadBlock)
        throw std::invalid_argument(
            "MSCCL export: rank " + std::to_string(r) + " thread block " + std::to_string(t) +
            " (channel " + std::to_string(ranks.back().tbs[t].chan) + ") has " +
            std::to_string(ranks.back().tbs[t].length) + " steps; the executor holds " +
            std::to_string(options.maxStepsPerThreadBlock) + " (MSCCL_MAX_NUM_STEPS)");
  }
  std::ostringstream os;
  os << "<algo name=\"" << escaped(options.name.empty() ? plan.algorithm : options.name)
     << "\" proto=\"" << toString(options.protocol) << "\" nchannels=\"" << channels
     << "\" nchunksperloop=\"" << plan.units << "\" ngpus=\"" << plan.ranks << "\" coll=\""
     << *mscclCollectiveName(plan.collective) << "\" inplace=\"" << (plan.inplaceSafe ? 1 : 0)
     << "\" outofplace=\"1\" minBytes=\"" << options.minBytes << "\" maxBytes=\""
     << std::min(options.maxBytes, largest) << "\">\n";
  for (int r = 0; r < plan.ranks; ++r) {
    os << "  <gpu id=\"" << r << "\" i_chunks=\"" << bufferUnits(plan, BufferKind::In, r)
       << "\" o_chunks=\"" << bufferUnits(plan, BufferKind::Out, r) << "\" s_chunks=\""
       << plan.scratchUnits << "\">\n";
    for (size_t t = 0; t < ranks[r].tbs.size(); ++t) writeThreadBlock(os, ranks[r], t);
    os << "  </gpu>\n";
  }
  os << "</algo>\n";
  return os.str();
}

} // namespace collplan
