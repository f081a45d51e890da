// planToMscclppJson: a plan's channels as MSCCL++ thread blocks of put/signal/wait/copy/re ops.
#include "runtime/interop/MscclModel.h"
#include "runtime/interop/MscclppJson.h"

#include "runtime/plan/PlanValidate.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace collplan {
namespace {

using json = nlohmann::ordered_json; // keeps the executor's field order

/// The executor's limits (execution_common.hpp): ops per thread block (MAX_OPERATION) and
/// memory channels per rank (MAX_CHANNEL).
constexpr size_t kMaxOpsPerThreadBlock = kMscclppMaxOperations;
constexpr size_t kMaxChannelsPerRank = 16;

/// Names the op an error is about: "rank 2 channel 0 op 5 (recv_reduce_send)".
struct OpContext {
  int rank;
  uint32_t channel, op;
  const PlanOp &planOp;

  [[noreturn]] void fail(const std::string &reason) const {
    throw std::invalid_argument("MSCCL++ export: rank " + std::to_string(rank) + " channel " +
                                std::to_string(channel) + " op " + std::to_string(op) + " (" +
                                std::string(toString(planOp.kind)) + "): " + reason);
  }
};


using LinkKey = std::tuple<int, int, uint32_t>; ///< (sender, receiver, channel)

/// Where every message lands: a scratch slot of the receiver's, after the plan's own scratch
/// units, one per message in the order the receiver takes them.
struct SlotPlan {
  std::map<LinkKey, std::vector<uint32_t>> slots;
  std::vector<uint32_t> scratchUnits; ///< per rank, the plan's and the slots
};

/// The phase (offset mod units per block) of the op's value: units of different phases may
/// differ in size, so a message's slot starts at the phase of the data it carries.
uint32_t valuePhase(const PlanOp &op, uint32_t unitsPerBlock) {
  if (!op.srcs.empty()) return op.srcs.front().offset % unitsPerBlock;
  if (!op.dsts.empty()) return op.dsts.front().offset % unitsPerBlock;
  return 0;
}

/// The first offset at or after `next` of phase `phase`.
uint32_t atPhase(uint32_t next, uint32_t phase, uint32_t unitsPerBlock) {
  const uint32_t at = next - next % unitsPerBlock + phase;
  return at >= next ? at : at + unitsPerBlock;
}

SlotPlan assignSlots(const Plan &plan) {
  SlotPlan sp;
  const uint32_t unitsPerBlock =
      std::max<uint32_t>(1, plan.units / uint32_t(messageBlocks(plan.collective, plan.ranks)));
  for (int q = 0; q < plan.ranks; ++q) {
    uint32_t next = plan.scratchUnits;
    const auto &channels = plan.programs[q].channels;
    for (uint32_t c = 0; c < channels.size(); ++c)
      for (const PlanOp &op : channels[c].ops)
        if (op.recv) {
          next = atPhase(next, valuePhase(op, unitsPerBlock), unitsPerBlock);
          sp.slots[{*op.recv, q, c}].push_back(next);
          next += op.length();
        }
    sp.scratchUnits.push_back(next);
  }
  return sp;
}

/// A rank's memory channels and remote buffers, and what each thread block refers to.
struct RankLinks {
  std::map<std::pair<uint32_t, int>, size_t> tbChannelIndex;   ///< (tb, peer) -> tb channel
  std::map<std::pair<uint32_t, int>, size_t> tbRemoteIndex;    ///< (tb, peer) -> tb buffer ref
  std::vector<int> channelPeers;                               ///< gpu channels, in order
  std::vector<int> remotePeers;                                ///< gpu remote buffers
  std::vector<std::vector<size_t>> tbChannels, tbRemotes;      ///< per tb: gpu indices
};

/// Peers of rank r's channel c: those it sends to, and those it receives from.
std::pair<std::set<int>, std::set<int>> channelPeers(const Channel &channel) {
  std::set<int> sendTo, recvFrom;
  for (const PlanOp &op : channel.ops) {
    sendTo.insert(op.sends.begin(), op.sends.end());
    if (op.recv) recvFrom.insert(*op.recv);
  }
  return {sendTo, recvFrom};
}

/// Channels are listed per (thread block, peer) in ascending order on both ends: channel c
/// links r and p exactly when one sends to the other on c, so the executor, which pairs the
/// k-th channel of r to p with the k-th of p to r, pairs the same thread blocks' channels.
RankLinks buildLinks(const RankProgram &program, int rank) {
  RankLinks links;
  std::map<int, size_t> remoteOf;
  for (uint32_t c = 0; c < program.channels.size(); ++c) {
    auto [sendTo, recvFrom] = channelPeers(program.channels[c]);
    std::set<int> peers = sendTo;
    peers.insert(recvFrom.begin(), recvFrom.end());
    links.tbChannels.emplace_back();
    links.tbRemotes.emplace_back();
    for (int p : peers) {
      links.tbChannelIndex[{c, p}] = links.tbChannels[c].size();
      links.tbChannels[c].push_back(links.channelPeers.size());
      links.channelPeers.push_back(p);
    }
    for (int p : sendTo) {
      auto [it, added] = remoteOf.emplace(p, links.remotePeers.size());
      if (added) links.remotePeers.push_back(p);
      links.tbRemoteIndex[{c, p}] = links.tbRemotes[c].size();
      links.tbRemotes[c].push_back(it->second);
    }
  }
  if (links.channelPeers.size() > kMaxChannelsPerRank)
    throw std::invalid_argument("MSCCL++ export: rank " + std::to_string(rank) + " needs " +
                                std::to_string(links.channelPeers.size()) +
                                " memory channels (one per channel and peer); the executor "
                                "holds " + std::to_string(kMaxChannelsPerRank) + " (MAX_CHANNEL)");
  return links;
}

json localBuff(const BufRef &ref) {
  return json{{"type", mscclBufferName(ref.buf)}, {"index", ref.offset}, {"size", ref.length}};
}

/// Emits one thread block's ops, a `nop` (__syncthreads) between two ops unless the first
/// only waits for its own threads' signal.
class OpWriter {
public:
  explicit OpWriter(json &ops) : ops_(ops) {}
  void add(json op) {
    if (!ops_.empty() && needsSync_) ops_.push_back(json{{"name", "nop"}});
    needsSync_ = op["name"] != "signal";
    ops_.push_back(std::move(op));
  }

private:
  json &ops_;
  bool needsSync_ = false;
};

struct ExportState {
  SlotPlan slots;
  std::vector<RankLinks> links;
  std::map<LinkKey, size_t> sent, received; ///< messages written so far per link and side

  /// The slot of the next message on `link`, from the sender's or the receiver's side; null
  /// when the other side has no such message.
  const uint32_t *next(const LinkKey &link, bool sending) {
    const auto it = slots.slots.find(link);
    size_t &cursor = (sending ? sent : received)[link];
    if (it == slots.slots.end() || cursor >= it->second.size()) return nullptr;
    return &it->second[cursor++];
  }
};

json channelOp(std::string_view name, std::vector<size_t> ids) {
  return json{{"name", name}, {"channel_ids", ids}, {"channel_type", "memory"}};
}

/// The op's value as a copy or fold into `dst` (`re` folds src_buff left to right).
json computeOp(const std::vector<BufRef> &operands, const BufRef &dst) {
  json srcs = json::array();
  for (const BufRef &ref : operands) srcs.push_back(localBuff(ref));
  return json{{"name", operands.size() == 1 ? "copy" : "re"},
              {"src_buff", srcs},
              {"dst_buff", json::array({localBuff(dst)})}};
}

/// Puts `value` into each receiver's next slot and signals them.
void writeSends(ExportState &st, const OpContext &ctx, const BufRef &value, OpWriter &out) {
  const PlanOp &op = ctx.planOp;
  if (op.sends.empty()) return;
  if (op.sends.size() > kMscclppMaxOperands)
    ctx.fail("sends to " + std::to_string(op.sends.size()) + " peers; an op has at most " +
             std::to_string(kMscclppMaxOperands) + " channels");
  json srcs = json::array(), dsts = json::array();
  std::vector<size_t> channels;
  const RankLinks &links = st.links[ctx.rank];
  for (int q : op.sends) {
    const uint32_t *slot = st.next({ctx.rank, q, ctx.channel}, true);
    if (!slot) ctx.fail("sends to rank " + std::to_string(q) + ", which never receives it");
    srcs.push_back(localBuff(value));
    dsts.push_back(json{{"buffer_id", links.tbRemoteIndex.at({ctx.channel, q})},
                        {"index", *slot},
                        {"size", value.length}});
    channels.push_back(links.tbChannelIndex.at({ctx.channel, q}));
  }
  out.add(json{{"name", "put"}, {"src_buff", srcs}, {"dst_buff", dsts},
               {"channel_type", "memory"}});
  out.add(channelOp("signal", channels));
}

/// Waits for the op's message and names its slot as the received operand.
BufRef writeWait(ExportState &st, const OpContext &ctx, OpWriter &out) {
  const int p = *ctx.planOp.recv;
  const uint32_t *slot = st.next({p, ctx.rank, ctx.channel}, false);
  if (!slot) ctx.fail("receives from rank " + std::to_string(p) + ", which never sends it");
  out.add(channelOp("wait", {st.links[ctx.rank].tbChannelIndex.at({ctx.channel, p})}));
  return BufRef{BufferKind::Tmp, *slot, ctx.planOp.length()};
}

/// One collplan op: [wait,] [copy or re into its first destination,] copies into the other
/// destinations, [put to every receiver, signal].
void writeOp(ExportState &st, const OpContext &ctx, OpWriter &out) {
  const PlanOp &op = ctx.planOp;
  if (!op.after.empty())
    ctx.fail("waits for ops of other channels (after); thread blocks of an exported plan "
             "synchronise through their messages only");
  std::vector<BufRef> operands = op.srcs;
  if (op.recv) operands.insert(operands.begin() + op.recvPos, writeWait(st, ctx, out));
  if (operands.size() > kMscclppMaxOperands + 2)
    ctx.fail("folds " + std::to_string(operands.size()) + " operands; an op reads at most " +
             std::to_string(kMscclppMaxOperands + 2));
  BufRef value = operands.front();
  if (operands.size() > 1 || !op.dsts.empty()) {
    // A fold with no destination (recv_reduce_send) lands in the received slot itself.
    value = op.dsts.empty() ? operands[op.recvPos] : op.dsts.front();
    out.add(computeOp(operands, value));
  }
  for (size_t d = 1; d < op.dsts.size(); ++d) out.add(computeOp({value}, op.dsts[d]));
  writeSends(st, ctx, value, out);
}

json writeThreadBlock(ExportState &st, const Plan &plan, int rank, uint32_t c) {
  json ops = json::array();
  OpWriter out(ops);
  const Channel &channel = plan.programs[rank].channels[c];
  for (uint32_t i = 0; i < channel.ops.size(); ++i)
    writeOp(st, OpContext{rank, c, i, channel.ops[i]}, out);
  if (ops.size() > kMaxOpsPerThreadBlock)
    throw std::invalid_argument("MSCCL++ export: rank " + std::to_string(rank) + " channel " +
                                std::to_string(c) + " needs " + std::to_string(ops.size()) +
                                " ops; a thread block holds " +
                                std::to_string(kMaxOpsPerThreadBlock) + " (MAX_OPERATION)");
  const RankLinks &links = st.links[rank];
  json tb{{"id", c},
          {"ops", ops},
          {"channels", json::array({json{{"channel_type", "memory"},
                                         {"channel_ids", links.tbChannels[c]}}})}};
  if (!links.tbRemotes[c].empty())
    tb["remote_buffer_refs"] = json::array(
        {json{{"access_channel_type", "memory"}, {"remote_buffer_ids", links.tbRemotes[c]}}});
  return tb;
}

json writeGpu(ExportState &st, const Plan &plan, int rank) {
  const RankLinks &links = st.links[rank];
  json channels = json::array(), remotes = json::array(), tbs = json::array();
  for (int p : links.channelPeers)
    channels.push_back(json{{"channel_type", "memory"}, {"connected_to", json::array({p})}});
  for (int p : links.remotePeers)
    remotes.push_back(json{{"rank", p}, {"type", "s"},
                           {"access_channel_types", json::array({"memory"})}});
  for (uint32_t c = 0; c < plan.programs[rank].channels.size(); ++c)
    tbs.push_back(writeThreadBlock(st, plan, rank, c));
  return json{{"id", rank},
              {"input_chunks", bufferUnits(plan, BufferKind::In, rank)},
              {"output_chunks", bufferUnits(plan, BufferKind::Out, rank)},
              {"scratch_chunks", st.slots.scratchUnits[rank]},
              {"channels", channels},
              {"remote_buffers", remotes},
              {"semaphores", json::array()},
              {"threadblocks", tbs}};
}

std::string_view checkCollective(const Plan &plan, const MscclppExportOptions &options) {
  if (plan.onlyRank >= 0)
    throw std::invalid_argument("MSCCL++ export: the plan holds rank " +
                                std::to_string(plan.onlyRank) + "'s program only");
  const std::optional<std::string_view> name = mscclCollectiveName(plan.collective);
  if (!name)
    throw std::invalid_argument("MSCCL++ export: the executor has no collective for " +
                                std::string(toString(plan.collective)) +
                                (needsRoot(plan.collective) ? " (its plans have no root)" : ""));
  if (options.inplace && !plan.inplaceSafe)
    throw std::invalid_argument("MSCCL++ export: inplace requested, but the plan is not "
                                "inplace_safe");
  return *name;
}

} // namespace

std::string planToMscclppJson(const Plan &plan, const MscclppExportOptions &options) {
  const std::string_view collective = checkCollective(plan, options);
  validatePlan(plan, "<plan>");
  ExportState st{assignSlots(plan), {}, {}, {}};
  for (int r = 0; r < plan.ranks; ++r) st.links.push_back(buildLinks(plan.programs[r], r));
  json gpus = json::array();
  for (int r = 0; r < plan.ranks; ++r) gpus.push_back(writeGpu(st, plan, r));
  json doc{{"name", options.name.empty() ? plan.algorithm : options.name},
           {"collective", collective},
           {"protocol", "Simple"},
           {"inplace", options.inplace},
           {"reuse_resources", false},
           {"num_threads_per_block", options.threadsPerBlock},
           {"use_double_scratch_buffer", false},
           {"buffer_alignment", 16},
           {"min_message_size", options.minMessageSize},
           {"max_message_size", options.maxMessageSize},
           {"gpus", gpus}};
  return doc.dump(2) + "\n";
}

} // namespace collplan
