// mscclppJsonToPlan: put/signal/wait as collplan messages, copy/re as local ops; then proven.
#include "runtime/interop/Imported.h"
#include "runtime/interop/MscclppJson.h"
#include "runtime/interop/MscclppModel.h"

#include "runtime/core/Files.h"
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace collplan {
namespace {

/// The puts one signal makes visible: where each lands on the receiver, and the sender's
/// thread block (collplan matches messages per channel, so both ends must share it).
struct Batch {
  uint32_t threadBlock = 0;
  std::vector<BufRef> dsts;
};

/// (sender, receiver, k): the k-th memory channel of the sender to the receiver, which the
/// executor pairs with the receiver's k-th channel to the sender.
using LinkKey = std::tuple<int, int, uint32_t>;

struct Importer {
  const MscclppPlan &doc;
  const std::string &origin;
  Plan &plan;
  std::map<LinkKey, std::deque<Batch>> batches;

  [[noreturn]] void fail(const MscclppOp &op, const std::string &reason) const {
    throw PlanError(origin, op.path, reason);
  }

  /// k for GPU channel `g` of rank r: how many earlier channels of r reach the same peer.
  uint32_t pairIndex(int r, uint32_t g) const {
    const std::vector<int> &peers = doc.gpus[size_t(r)].channelPeers;
    return uint32_t(std::count(peers.begin(), peers.begin() + g, peers[g]));
  }

  BufRef local(const MscclppOp &op, const MscclppBuff &b, const char *what) const {
    if (!b.local) fail(op, std::string(what) + " must be a local buffer (type), not a peer's");
    return BufRef{*b.local, b.index, b.size};
  }

  /// The peer and buffer a put's destination names.
  std::pair<int, BufRef> remote(const MscclppOp &op, const MscclppGpu &gpu,
                                const MscclppThreadBlock &tb, const MscclppBuff &b) const {
    if (b.local) fail(op, "a put writes a peer's buffer (buffer_id), not a local one");
    const MscclppRemoteBuffer &rb = gpu.remoteBuffers[tb.remoteBuffers[b.remote]];
    return {rb.rank, BufRef{rb.kind, b.index, b.size}};
  }

  void collectBatches(int r) {
    const MscclppGpu &gpu = doc.gpus[size_t(r)];
    for (uint32_t t = 0; t < gpu.threadBlocks.size(); ++t) {
      const MscclppThreadBlock &tb = gpu.threadBlocks[t];
      std::map<int, std::vector<BufRef>> pending;
      for (const MscclppOp &op : tb.ops) {
        if (op.type == MscclppOpType::Put)
          for (const MscclppBuff &d : op.dsts) {
            auto [peer, ref] = remote(op, gpu, tb, d);
            pending[peer].push_back(ref);
          }
        if (op.type != MscclppOpType::Signal) continue;
        for (uint32_t id : op.channelIds) {
          const uint32_t g = tb.channels[id];
          const int peer = gpu.channelPeers[g];
          auto it = pending.find(peer);
          if (it == pending.end() || it->second.empty())
            fail(op, "signals rank " + std::to_string(peer) + " without a put before it "
                     "(collplan has no messages without data)");
          batches[{r, peer, pairIndex(r, g)}].push_back(Batch{t, std::move(it->second)});
          pending.erase(it);
        }
      }
      for (const auto &[peer, refs] : pending)
        if (!refs.empty())
          throw PlanError(origin, "gpus[" + std::to_string(r) + "].threadblocks[" +
                                      std::to_string(t) + "]",
                          "puts to rank " + std::to_string(peer) + " that no signal follows");
    }
  }

  void emitPut(const MscclppOp &op, int r, const MscclppThreadBlock &tb, uint32_t t) {
    const MscclppGpu &gpu = doc.gpus[size_t(r)];
    if (op.srcs.size() != op.dsts.size())
      fail(op, "a put has one src_buff per dst_buff (" + std::to_string(op.srcs.size()) +
                   " and " + std::to_string(op.dsts.size()) + ")");
    for (size_t i = 0; i < op.dsts.size(); ++i) {
      PlanOp send;
      send.kind = OpKind::Send;
      send.srcs = {local(op, op.srcs[i], "src_buff")};
      send.sends = {remote(op, gpu, tb, op.dsts[i]).first};
      plan.programs[size_t(r)].channel(t).push_back(send);
    }
  }

  void emitWait(const MscclppOp &op, int r, const MscclppThreadBlock &tb, uint32_t t) {
    for (uint32_t id : op.channelIds) {
      const uint32_t g = tb.channels[id];
      const int peer = doc.gpus[size_t(r)].channelPeers[g];
      auto &queue = batches[{peer, r, pairIndex(r, g)}];
      if (queue.empty())
        fail(op, "waits for a signal rank " + std::to_string(peer) +
                     " never sends on the paired channel");
      if (queue.front().threadBlock != t)
        fail(op, "receives from thread block " + std::to_string(queue.front().threadBlock) +
                     " of rank " + std::to_string(peer) +
                     "; collplan matches messages per channel, so both ends must use one "
                     "thread block id");
      for (const BufRef &dst : queue.front().dsts) {
        PlanOp recv;
        recv.kind = OpKind::Recv;
        recv.recv = peer;
        recv.dsts = {dst};
        plan.programs[size_t(r)].channel(t).push_back(recv);
      }
      queue.pop_front();
    }
  }

  void emitLocal(const MscclppOp &op, int r, uint32_t t) {
    if (op.dsts.size() != 1 || op.srcs.empty() ||
        (op.type == MscclppOpType::Copy && op.srcs.size() != 1))
      fail(op, op.type == MscclppOpType::Copy
                   ? "a copy has one src_buff and one dst_buff"
                   : "a re has one or more src_buff and one dst_buff");
    PlanOp local;
    for (const MscclppBuff &s : op.srcs) local.srcs.push_back(this->local(op, s, "src_buff"));
    local.dsts = {this->local(op, op.dsts.front(), "dst_buff")};
    local.kind = local.srcs.size() == 1 ? OpKind::Copy : OpKind::Reduce;
    plan.programs[size_t(r)].channel(t).push_back(local);
  }

  void emitRank(int r) {
    const MscclppGpu &gpu = doc.gpus[size_t(r)];
    for (uint32_t t = 0; t < gpu.threadBlocks.size(); ++t)
      for (const MscclppOp &op : gpu.threadBlocks[t].ops) switch (op.type) {
        case MscclppOpType::Put: emitPut(op, r, gpu.threadBlocks[t], t); break;
        case MscclppOpType::Wait: emitWait(op, r, gpu.threadBlocks[t], t); break;
        case MscclppOpType::Copy:
        case MscclppOpType::Reduce: emitLocal(op, r, t); break;
        case MscclppOpType::Nop:
        case MscclppOpType::Signal: break;
        }
  }

  void checkAllWaited() const {
    for (const auto &[key, queue] : batches)
      if (!queue.empty())
        throw PlanError(origin, "gpus[" + std::to_string(std::get<0>(key)) + "]",
                        "signals rank " + std::to_string(std::get<1>(key)) +
                            " that never waits for them (" + std::to_string(queue.size()) +
                            " left)");
  }
};

Plan planHeader(const MscclppPlan &doc, const std::string &origin) {
  Plan plan;
  plan.collective = doc.collective;
  plan.ranks = int(doc.gpus.size());
  if (needsReduceOp(doc.collective)) plan.op = ReduceOp::Sum; // the call names the operation
  plan.algorithm = doc.name;
  plan.params = {{"mscclpp_min_message_size", doc.minMessageSize},
                 {"mscclpp_max_message_size", doc.maxMessageSize}};
  const MscclppGpu &first = doc.gpus.front();
  plan.units = doc.collective == CollectiveKind::ReduceScatter ? first.inputChunks
                                                               : first.outputChunks;
  const char *unitsField = doc.collective == CollectiveKind::ReduceScatter ? "input_chunks"
                                                                            : "output_chunks";
  const int blocks = messageBlocks(plan.collective, plan.ranks);
  if (plan.units == 0 || plan.units % uint32_t(blocks) != 0)
    throw PlanError(origin, std::string("gpus[0].") + unitsField,
                    std::to_string(plan.units) + " is not a positive multiple of the " +
                        std::to_string(blocks) + " blocks of " +
                        std::string(toString(doc.collective)) + " on " +
                        std::to_string(plan.ranks) + " ranks");
  for (const MscclppGpu &gpu : doc.gpus)
    plan.scratchUnits = std::max(plan.scratchUnits, gpu.scratchChunks);
  plan.inplaceSafe = doc.inplace;
  plan.programs.resize(doc.gpus.size());
  for (int r = 0; r < plan.ranks; ++r) {
    const MscclppGpu &gpu = doc.gpus[size_t(r)];
    const uint32_t in = bufferUnits(plan, BufferKind::In, r);
    const uint32_t out = bufferUnits(plan, BufferKind::Out, r);
    if (gpu.inputChunks != in || gpu.outputChunks != out)
      throw PlanError(origin, "gpus[" + std::to_string(r) + "]",
                      "input_chunks " + std::to_string(gpu.inputChunks) + " and output_chunks " +
                          std::to_string(gpu.outputChunks) + ", expected " + std::to_string(in) +
                          " and " + std::to_string(out) + " (" +
                          std::string(toString(doc.collective)) + " of " +
                          std::to_string(plan.units) + " units on " +
                          std::to_string(plan.ranks) + " ranks)");
  }
  return plan;
}

} // namespace

Plan mscclppJsonToPlan(std::string_view json, const std::string &origin) {
  const MscclppPlan doc = readMscclppPlan(json, origin);
  Plan plan = planHeader(doc, origin);
  Importer importer{doc, origin, plan, {}};
  for (int r = 0; r < plan.ranks; ++r) importer.collectBatches(r);
  for (int r = 0; r < plan.ranks; ++r) importer.emitRank(r);
  importer.checkAllWaited();
  proveImportedPlan(plan, origin);
  return plan;
}

FileVerification verifyMscclppJsonFile(const std::string &path, const VerifyFileOptions &options) {
  try {
    return verifyPlanOf(path, mscclppJsonToPlan(readWholeFile(path), path), options);
  } catch (const std::exception &e) { // unreadable, malformed, invalid or not proven
    return FileVerification{path, 0, {{"", e.what()}}, {}};
  }
}

} // namespace collplan
