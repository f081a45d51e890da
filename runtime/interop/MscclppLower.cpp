// lowerMscclppOps: puts, remote reads and packets of MSCCL++ thread blocks as collplan messages.
#include "runtime/interop/MscclppLower.h"

#include "runtime/plan/PlanError.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace collplan {

BufRef MscclppBufferMap::operator()(int rank, BufRef ref) const {
  if (!inplace || ref.buf != BufferKind::In) return ref;
  ref.buf = BufferKind::Out;
  ref.offset += uint32_t(inPlaceBlockShift(collective, 0, rank)) * unitsPerBlock;
  return ref;
}

namespace {

/// (sender, receiver, k): the k-th memory channel of the sender to the receiver, which the
/// executor pairs with the receiver's k-th channel to the sender.
using LinkKey = std::tuple<int, int, uint32_t>;

/// An op of a rank's program before the mailbox channels are laid out: an op of a thread
/// block's channel, or the i-th send or receive of a mailbox channel; or, until every rank is
/// emitted, the receives a signal event's puts land by (Event: channel = event) or the
/// receive of one read it guards (Read: channel = event, index = read).
enum class HandleKind : uint8_t { Op, MailSend, MailRecv, Event, Read };
struct Handle {
  HandleKind kind = HandleKind::Op;
  uint32_t channel = 0, index = 0;
  bool operator<(const Handle &o) const {
    return std::tie(kind, channel, index) < std::tie(o.kind, o.channel, o.index);
  }
  bool operator==(const Handle &o) const {
    return kind == o.kind && channel == o.channel && index == o.index;
  }
};

/// A peer's read of the signaller's range after the matching wait: sent at the signal, it
/// lands in a scratch slot of the reader's own (`slot`) that the reading op takes.
struct ReadLanding {
  int reader = 0;
  BufRef ref, slot;
  Handle recv; ///< the reader's receive, once the signaller is emitted
};

/// One signal on a link, and what the receiver's matching wait makes visible.
struct SignalEvent {
  bool relaxed = false;
  std::vector<BufRef> puts;          ///< where the puts before it land on the receiver
  std::vector<Handle> landed;        ///< the receiver's receives of those puts
  std::vector<ReadLanding> reads;    ///< what the receiver reads after its wait
};

/// A message's send, on the sender's mailbox channel (thread block count + its thread block).
struct MailSend {
  PlanOp op;
};
/// Its receive on the owner's mailbox channel of the same number, into the slot it lands in.
struct MailRecv {
  int sender = 0;
  uint32_t senderIndex = 0; ///< the send's index among the sender's mailbox sends
  BufRef slot;
};

/// The thread blocks of one barrier: per member, what ran before it and what runs after.
struct BarrierMember {
  uint32_t threadBlock = 0;
  std::vector<Handle> before, after;
};

struct Lowering {
  Lowering(const MscclppPlan &d, const std::string &o, const MscclppBufferMap &m, Plan &p)
      : doc(d), origin(o), map(m), plan(p) {}

  const MscclppPlan &doc;
  const std::string &origin;
  const MscclppBufferMap &map;
  Plan &plan;
  uint32_t mailboxBase = 0; ///< mailbox channel of thread block t: mailboxBase + t

  std::vector<SignalEvent> events;
  std::map<LinkKey, std::vector<size_t>> signals; // the events of each link, in order
  std::map<const MscclppOp *, std::vector<std::pair<size_t, size_t>>> readsOf; // (event, read)
  std::map<std::tuple<int, uint32_t, int>, std::vector<Handle>> putRecvs; // (rank, tb, peer)
  /// Per (rank, tb): what the next op must wait for (the receives a wait made visible), and
  /// the last message the thread block sent since its last op.
  std::map<std::pair<int, uint32_t>, std::vector<Handle>> pendingDeps;
  std::map<std::pair<int, uint32_t>, Handle> lastMailSend;
  uint32_t unitsPerBlock = 1, nextLanding = 0; // landing slots follow the plan's scratch
  std::map<LinkKey, size_t> waitsDone, signalsDone; // during emission
  std::map<std::pair<int, uint32_t>, std::vector<MailSend>> mailSends; // (rank, channel)
  std::map<std::pair<int, uint32_t>, std::vector<MailRecv>> mailRecvs;
  std::map<std::pair<int, uint32_t>, Handle> slotWriters; // (rank, tmp unit)
  std::map<std::pair<int, Handle>, std::vector<Handle>> deps;
  std::map<std::pair<int, Handle>, std::string> depPaths;
  struct SlotRead {
    int rank;
    Handle consumer;
    BufRef slot;
    std::string path;
  };
  std::vector<SlotRead> slotReads;
  /// Per (rank, thread block): ranges written so far, and the ranges peers read after this
  /// thread block's signal that it may not overwrite until it waits for them.
  std::map<std::pair<int, uint32_t>, std::vector<BufRef>> written;
  std::map<std::pair<int, uint32_t>, std::vector<std::pair<int, BufRef>>> guards;
  /// Barriers: (rank, barrier id, occurrence) → members; per (rank, tb) an open barrier.
  std::map<std::tuple<int, uint32_t, uint32_t>, std::vector<BarrierMember>> barriers;
  std::map<std::pair<int, uint32_t>, std::pair<std::tuple<int, uint32_t, uint32_t>, size_t>>
      openBarrier;
  std::map<std::tuple<int, uint32_t, uint32_t>, uint32_t> barrierCount; // (rank, tb, id)

  [[noreturn]] void fail(const std::string &path, const std::string &reason) const {
    throw PlanError(origin, path, reason);
  }

  const MscclppGpu &gpu(int r) const { return doc.gpus[size_t(r)]; }

  uint32_t pairIndex(int r, uint32_t g) const {
    const std::vector<int> &peers = gpu(r).channelPeers;
    return uint32_t(std::count(peers.begin(), peers.begin() + g, peers[g]));
  }

  BufRef local(int r, const MscclppOp &op, const MscclppBuff &b, const char *what) const {
    if (!b.local) fail(op.path, std::string(what) + " must be a local buffer (type), not a peer's");
    return map(r, BufRef{*b.local, b.index, b.size});
  }

  /// The peer and its range a `buffer_id` reference names.
  std::pair<int, BufRef> remote(int r, uint32_t t, const MscclppOp &op, const MscclppBuff &b,
                                const char *what) const {
    if (b.local) fail(op.path, std::string(what) + " must be a peer's buffer (buffer_id)");
    const MscclppGpu &g = gpu(r);
    const MscclppRemoteBuffer &rb = g.remoteBuffers[g.threadBlocks[t].remoteBuffers[b.remote]];
    return {rb.rank, map(rb.rank, BufRef{rb.kind, b.index, b.size})};
  }

  static std::string text(const BufRef &ref) {
    const char *name = ref.buf == BufferKind::In ? "in" : ref.buf == BufferKind::Out ? "out" : "tmp";
    return std::string(name) + "[" + std::to_string(ref.offset) + ":" +
           std::to_string(ref.offset + ref.length) + "]";
  }

  static bool overlap(const BufRef &a, const BufRef &b) {
    return a.buf == b.buf && a.offset < b.offset + b.length && b.offset < a.offset + a.length;
  }

  // ---- 1. signals and what they make visible ----------------------------------------------

  /// The puts before each signal (put, res and rres destinations on peers).
  void collectSignals(int r) {
    for (uint32_t t = 0; t < gpu(r).threadBlocks.size(); ++t) {
      const MscclppThreadBlock &tb = gpu(r).threadBlocks[t];
      std::map<int, std::vector<BufRef>> pending;
      for (const MscclppOp &op : tb.ops) {
        for (const auto &[peer, ref] : remoteWrites(r, t, op)) pending[peer].push_back(ref);
        if (op.type == MscclppOpType::Signal) addSignal(r, t, op, pending);
      }
      for (const auto &[peer, refs] : pending)
        if (!refs.empty())
          fail("gpus[" + std::to_string(r) + "].threadblocks[" + std::to_string(t) + "]",
               "puts to rank " + std::to_string(peer) + " that no signal follows");
    }
  }

  /// The peers' ranges a Simple-protocol op writes (puts), in order.
  std::vector<std::pair<int, BufRef>> remoteWrites(int r, uint32_t t, const MscclppOp &op) const {
    std::vector<std::pair<int, BufRef>> out;
    size_t first = 0;
    if (op.type == MscclppOpType::ReduceSend || op.type == MscclppOpType::ReadReduceSend)
      first = 1;
    else if (op.type != MscclppOpType::Put)
      return out;
    for (size_t i = first; i < op.dsts.size(); ++i)
      out.push_back(remote(r, t, op, op.dsts[i], "a put's dst_buff"));
    return out;
  }

  void addSignal(int r, uint32_t t, const MscclppOp &op, std::map<int, std::vector<BufRef>> &pending) {
    for (uint32_t id : op.channelIds) {
      const uint32_t g = gpu(r).threadBlocks[t].channels[id];
      const int peer = gpu(r).channelPeers[g];
      std::vector<BufRef> puts = std::move(pending[peer]);
      pending.erase(peer);
      if (op.relaxed && !puts.empty())
        fail(op.path, "a relaxed signal (rlxsignal) does not make the puts to rank " +
                          std::to_string(peer) + " before it visible; use signal");
      signals[{r, peer, pairIndex(r, g)}].push_back(events.size());
      events.push_back(SignalEvent{op.relaxed, std::move(puts), {}, {}});
    }
  }

  // ---- 2. remote reads: which signal guards each ---------------------------------------------

  void collectReads(int r, std::map<LinkKey, size_t> &waitCount) {
    for (uint32_t t = 0; t < gpu(r).threadBlocks.size(); ++t) {
      std::map<int, std::pair<LinkKey, size_t>> lastWait;
      for (const MscclppOp &op : gpu(r).threadBlocks[t].ops) {
        if (op.type == MscclppOpType::Wait)
          for (uint32_t id : op.channelIds) {
            const auto [peer, key] = waitLink(r, t, id);
            const size_t i = waitCount[key]++;
            if (i >= signals[key].size())
              fail(op.path, "waits for a signal rank " + std::to_string(peer) +
                                " never sends on the paired channel");
            lastWait[peer] = {key, i};
          }
        for (const auto &[owner, ref] : remoteReads(r, t, op)) {
          const auto guard = lastWait.find(owner);
          if (guard == lastWait.end())
            fail(op.path, "reads rank " + std::to_string(owner) + "'s " + text(ref) +
                              " with no wait on a channel from rank " + std::to_string(owner) +
                              " before it in its thread block: nothing says the data is ready");
          const size_t e = signals[guard->second.first][guard->second.second];
          events[e].reads.push_back(ReadLanding{r, ref, landing(ref), {}});
          readsOf[&op].push_back({e, events[e].reads.size() - 1});
        }
      }
    }
  }

  /// A scratch slot of the plan's own, after the file's scratch, for a value like `ref`: at
  /// `ref`'s phase, as collplan lays out scratch.
  BufRef landing(const BufRef &ref) {
    const uint32_t phase = ref.offset % unitsPerBlock;
    uint32_t at = (nextLanding + unitsPerBlock - 1) / unitsPerBlock * unitsPerBlock + phase;
    if (at < nextLanding) at += unitsPerBlock;
    nextLanding = at + ref.length;
    return BufRef{BufferKind::Tmp, at, ref.length};
  }

  /// The peer a wait's channel `id` listens to, and the link it waits on.
  std::pair<int, LinkKey> waitLink(int r, uint32_t t, uint32_t id) const {
    const uint32_t g = gpu(r).threadBlocks[t].channels[id];
    const int peer = gpu(r).channelPeers[g];
    return {peer, LinkKey{peer, r, pairIndex(r, g)}};
  }

  /// The peers' ranges an op reads (get, rre, rres), in order.
  std::vector<std::pair<int, BufRef>> remoteReads(int r, uint32_t t, const MscclppOp &op) const {
    std::vector<std::pair<int, BufRef>> out;
    size_t first = 1;
    if (op.type == MscclppOpType::Get) first = 0;
    else if (op.type != MscclppOpType::ReadReduce && op.type != MscclppOpType::ReadReduceSend)
      return out;
    for (size_t i = first; i < op.srcs.size(); ++i)
      out.push_back(remote(r, t, op, op.srcs[i], "a remote read's src_buff"));
    return out;
  }

  // ---- 3. emission ---------------------------------------------------------------------------

  /// Appends `op` to channel t of rank r; the op closes an open barrier of the thread block.
  Handle push(int r, uint32_t t, PlanOp op) {
    std::vector<PlanOp> &ops = plan.programs[size_t(r)].channel(t);
    ops.push_back(std::move(op));
    const Handle h{HandleKind::Op, t, uint32_t(ops.size() - 1)};
    noteAfterBarrier(r, t, h, true);
    const auto pending = pendingDeps.find({r, t});
    if (pending != pendingDeps.end()) {
      for (const Handle &d : pending->second) addDep(r, h, d, "");
      pendingDeps.erase(pending);
    }
    // The thread block's messages sent since its last op went out before this op starts.
    const auto sent = lastMailSend.find({r, t});
    if (sent != lastMailSend.end()) {
      addDep(r, h, sent->second, "");
      lastMailSend.erase(sent);
    }
    return h;
  }

  /// The last op of rank r's channel t so far (the program position of what comes next).
  std::optional<Handle> position(int r, uint32_t t) const {
    const RankProgram &program = plan.programs[size_t(r)];
    if (t >= program.channels.size() || program.channels[t].ops.empty()) return std::nullopt;
    return Handle{HandleKind::Op, t, uint32_t(program.channels[t].ops.size() - 1)};
  }

  void addDep(int r, Handle consumer, Handle dep, const std::string &path) {
    deps[{r, consumer}].push_back(dep);
    if (!path.empty() || !depPaths.count({r, consumer})) depPaths[{r, consumer}] = path;
  }

  void noteWrite(int r, uint32_t t, const MscclppOp &op, const BufRef &ref) {
    for (const auto &[reader, guarded] : guards[{r, t}])
      if (overlap(ref, guarded))
        fail(op.path, "overwrites " + text(ref) + ", which rank " + std::to_string(reader) +
                          " may still be reading: it reads " + text(guarded) +
                          " after this thread block's signal, and this thread block has not "
                          "waited for it since");
    written[{r, t}].push_back(ref);
  }

  void emitRank(int r) {
    for (uint32_t t = 0; t < gpu(r).threadBlocks.size(); ++t)
      for (const MscclppOp &op : gpu(r).threadBlocks[t].ops) emitOp(r, t, op);
  }

  void emitOp(int r, uint32_t t, const MscclppOp &op) {
    switch (op.type) {
    case MscclppOpType::Nop: return;
    case MscclppOpType::Barrier: return openBarrierAt(r, t, op);
    case MscclppOpType::Signal: return emitSignal(r, t, op);
    case MscclppOpType::Wait: return emitWait(r, t, op);
    case MscclppOpType::Put: return emitPut(r, t, op);
    case MscclppOpType::Get: return emitGet(r, t, op);
    case MscclppOpType::Copy:
    case MscclppOpType::Reduce:
    case MscclppOpType::ReduceSend: return emitLocal(r, t, op);
    case MscclppOpType::ReadReduce:
    case MscclppOpType::ReadReduceSend: return emitReadReduce(r, t, op);
    case MscclppOpType::PutPackets: return emitPutPackets(r, t, op);
    case MscclppOpType::ReadPutPackets: return emitReadPutPackets(r, t, op);
    case MscclppOpType::CopyPackets: return emitCopyPackets(r, t, op);
    case MscclppOpType::UnpackPackets: return emitUnpackPackets(r, t, op);
    case MscclppOpType::ReducePackets:
    case MscclppOpType::ReduceSendPackets:
    case MscclppOpType::ReduceCopyPackets:
    case MscclppOpType::ReduceCopySendPackets: return emitReducePackets(r, t, op);
    }
  }

  /// A message from rank r's thread block t: a send of `value` on its mailbox channel, after
  /// the thread block's program position (and what it waits for), and the receiver's receive
  /// into `landing` on the mailbox channel of the same number. Returns the receive.
  Handle mailSend(int r, uint32_t t, const MscclppOp &op, const BufRef &value, int receiver,
                  const BufRef &landing, std::vector<Handle> after = {}) {
    const uint32_t m = mailboxBase + t;
    if (m >= kMaxChannels)
      fail(op.path, "thread block " + std::to_string(t) + "'s messages need channel " +
                        std::to_string(m) + ", past collplan's " + std::to_string(kMaxChannels));
    std::vector<MailSend> &sends = mailSends[{r, m}];
    PlanOp send;
    send.kind = OpKind::Send;
    send.srcs = {value};
    send.sends = {receiver};
    sends.push_back(MailSend{send});
    const Handle h{HandleKind::MailSend, m, uint32_t(sends.size() - 1)};
    if (const std::optional<Handle> p = position(r, t)) after.push_back(*p);
    const auto pending = pendingDeps.find({r, t});
    if (pending != pendingDeps.end())
      after.insert(after.end(), pending->second.begin(), pending->second.end());
    for (const Handle &d : after) addDep(r, h, d, op.path);
    noteAfterBarrier(r, t, h, false);
    lastMailSend[{r, t}] = h;
    std::vector<MailRecv> &recvs = mailRecvs[{receiver, m}];
    recvs.push_back(MailRecv{r, h.index, landing});
    return Handle{HandleKind::MailRecv, m, uint32_t(recvs.size() - 1)};
  }

  /// A put of `value` to the owner of op.dsts[i]: it lands there; the owner's wait after the
  /// next signal makes it visible.
  void putTo(int r, uint32_t t, const MscclppOp &op, const BufRef &value, size_t i) {
    const auto [owner, dst] = remote(r, t, op, op.dsts[i], "dst_buff");
    putRecvs[{r, t, owner}].push_back(mailSend(r, t, op, value, owner, dst));
  }

  /// A signal: its puts' receives are what the matching wait waits for; the data its peer
  /// reads after that wait leaves now (copy semantics), and this thread block may not
  /// overwrite it until it waits for that peer.
  void emitSignal(int r, uint32_t t, const MscclppOp &op) {
    for (uint32_t id : op.channelIds) {
      const uint32_t g = gpu(r).threadBlocks[t].channels[id];
      const int peer = gpu(r).channelPeers[g];
      const LinkKey key{r, peer, pairIndex(r, g)};
      SignalEvent &event = events[signals[key][signalsDone[key]++]];
      event.landed = std::move(putRecvs[{r, t, peer}]);
      putRecvs.erase({r, t, peer});
      for (ReadLanding &read : event.reads) {
        if (event.relaxed)
          for (const BufRef &w : written[{r, t}])
            if (overlap(w, read.ref))
              fail(op.path, "rank " + std::to_string(peer) + " reads " + text(read.ref) +
                                " after this relaxed signal (rlxsignal), which does not order "
                                "this thread block's earlier write of it");
        read.recv = mailSend(r, t, op, read.ref, peer, read.slot);
        guards[{r, t}].push_back({peer, read.ref});
      }
    }
  }

  /// A wait: what follows in the thread block waits for the puts the matching signal covers.
  void emitWait(int r, uint32_t t, const MscclppOp &op) {
    for (uint32_t id : op.channelIds) {
      const auto [peer, key] = waitLink(r, t, id);
      const size_t e = signals[key][waitsDone[key]++];
      if (op.relaxed && !events[e].puts.empty())
        fail(op.path, "a relaxed wait (rlxwait) does not make rank " + std::to_string(peer) +
                          "'s puts visible; use wait");
      auto &guarded = guards[{r, t}];
      guarded.erase(std::remove_if(guarded.begin(), guarded.end(),
                                   [&](const auto &g) { return g.first == peer; }),
                    guarded.end());
      pendingDeps[{r, t}].push_back(Handle{HandleKind::Event, uint32_t(e), 0});
    }
  }

  void emitPut(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() != op.dsts.size())
      fail(op.path, "a put has one src_buff per dst_buff (" + std::to_string(op.srcs.size()) +
                        " and " + std::to_string(op.dsts.size()) + ")");
    for (size_t i = 0; i < op.dsts.size(); ++i)
      putTo(r, t, op, local(r, op, op.srcs[i], "src_buff"), i);
  }

  /// The landing slots of the op's remote reads, and the handles of their receives.
  std::vector<std::pair<BufRef, Handle>> readLandings(const MscclppOp &op) const {
    std::vector<std::pair<BufRef, Handle>> out;
    const auto it = readsOf.find(&op);
    if (it == readsOf.end()) return out;
    for (const auto &[e, i] : it->second)
      out.push_back({events[e].reads[i].slot,
                     Handle{HandleKind::Read, uint32_t(e), uint32_t(i)}});
    return out;
  }

  /// get: each peer's range, received (from the owner's signal) into a landing slot, is
  /// copied into the local destination where the get runs.
  void emitGet(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() != op.dsts.size())
      fail(op.path, "a get has one dst_buff per src_buff");
    const std::vector<std::pair<BufRef, Handle>> landed = readLandings(op);
    for (size_t i = 0; i < op.srcs.size(); ++i) {
      PlanOp copy;
      copy.kind = OpKind::Copy;
      copy.srcs = {landed[i].first};
      copy.dsts = {local(r, op, op.dsts[i], "a get's dst_buff")};
      noteWrite(r, t, op, copy.dsts.front());
      addDep(r, push(r, t, copy), landed[i].second, op.path);
    }
  }

  /// copy, re, res: the left fold of the local sources into dst_buff[0] (res: then put).
  void emitLocal(int r, uint32_t t, const MscclppOp &op) {
    const bool sends = op.type == MscclppOpType::ReduceSend;
    if (op.srcs.empty() || op.dsts.empty() || (!sends && op.dsts.size() != 1) ||
        (op.type == MscclppOpType::Copy && op.srcs.size() != 1))
      fail(op.path, op.type == MscclppOpType::Copy
                        ? "a copy has one src_buff and one dst_buff"
                        : "a re has one or more src_buff and one dst_buff (res: then peers')");
    PlanOp value;
    for (const MscclppBuff &s : op.srcs) value.srcs.push_back(local(r, op, s, "src_buff"));
    value.dsts = {local(r, op, op.dsts.front(), "dst_buff[0]")};
    value.kind = value.srcs.size() == 1 ? OpKind::Copy : OpKind::Reduce;
    noteWrite(r, t, op, value.dsts.front());
    push(r, t, value);
    if (sends)
      for (size_t i = 1; i < op.dsts.size(); ++i) putTo(r, t, op, value.dsts.front(), i);
  }

  /// rre, rres: src_buff[0] folded left to right with each peer's range (received into landing
  /// slots), as the executor folds, into dst_buff[0]; rres then puts the result.
  void emitReadReduce(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() < 2 || op.dsts.empty())
      fail(op.path, "a read-reduce has a local src_buff, peers' src_buff and a local dst_buff");
    PlanOp fold;
    fold.kind = OpKind::Reduce;
    fold.srcs = {local(r, op, op.srcs.front(), "src_buff[0]")};
    const std::vector<std::pair<BufRef, Handle>> landed = readLandings(op);
    for (const auto &[slot, recv] : landed) fold.srcs.push_back(slot);
    const BufRef dst = local(r, op, op.dsts.front(), "dst_buff[0]");
    fold.dsts = {dst};
    noteWrite(r, t, op, dst);
    const Handle h = push(r, t, fold);
    for (const auto &[slot, recv] : landed) addDep(r, h, recv, op.path);
    if (op.type == MscclppOpType::ReadReduceSend)
      for (size_t i = 1; i < op.dsts.size(); ++i) putTo(r, t, op, dst, i);
  }

  // ---- packets --------------------------------------------------------------------------------

  /// A packet write of `value` into `owner`'s scratch `slot`: a message received where it
  /// lands; its readers wait for that receive.
  void packetSend(int r, uint32_t t, const MscclppOp &op, const BufRef &value, int owner,
                  const BufRef &slot) {
    if (slot.buf != BufferKind::Tmp)
      fail(op.path, "packets land in a peer's scratch buffer (s), not " + text(slot));
    writeSlot(owner, slot, mailSend(r, t, op, value, owner, slot), op);
  }

  /// Records that `writer` fills rank r's scratch `slot` with packets; one writer per unit.
  void writeSlot(int r, const BufRef &slot, Handle writer, const MscclppOp &op) {
    for (uint32_t u = slot.offset; u < slot.offset + slot.length; ++u)
      if (!slotWriters.emplace(std::make_pair(r, u), writer).second)
        fail(op.path, "writes packets to tmp[" + std::to_string(u) + "] of rank " +
                          std::to_string(r) + ", which another op writes too: with one flag "
                          "per call, its reader cannot tell them apart");
  }

  /// `consumer` reads packets from rank r's `slot`: it waits for their writers.
  void readSlot(int r, Handle consumer, const BufRef &slot, const MscclppOp &op) {
    if (slot.buf != BufferKind::Tmp)
      fail(op.path, "packets are read from the scratch buffer (s), not " + text(slot));
    slotReads.push_back(SlotRead{r, consumer, slot, op.path});
  }

  void emitPutPackets(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() != op.dsts.size())
      fail(op.path, "a ppkt has one src_buff per dst_buff");
    for (size_t i = 0; i < op.dsts.size(); ++i) {
      const auto [owner, slot] = remote(r, t, op, op.dsts[i], "a ppkt's dst_buff");
      packetSend(r, t, op, local(r, op, op.srcs[i], "src_buff"), owner, slot);
    }
  }

  void emitReadPutPackets(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() != 1 || op.dsts.empty())
      fail(op.path, "an rppkt reads one local scratch range and writes peers' scratch");
    const BufRef slot = local(r, op, op.srcs.front(), "src_buff");
    for (const MscclppBuff &d : op.dsts) {
      const auto [owner, dst] = remote(r, t, op, d, "an rppkt's dst_buff");
      packetSend(r, t, op, slot, owner, dst);
      readSlot(r, Handle{HandleKind::MailSend, mailboxBase + t,
                         uint32_t(mailSends[{r, mailboxBase + t}].size() - 1)},
               slot, op);
    }
  }

  void emitCopyPackets(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() != 1 || op.dsts.size() != 1)
      fail(op.path, "a cpkt has one src_buff and one dst_buff");
    PlanOp copy;
    copy.kind = OpKind::Copy;
    copy.srcs = {local(r, op, op.srcs.front(), "src_buff")};
    copy.dsts = {local(r, op, op.dsts.front(), "dst_buff")};
    if (copy.dsts.front().buf != BufferKind::Tmp)
      fail(op.path, "a cpkt writes packets into the scratch buffer (s)");
    const BufRef slot = copy.dsts.front();
    writeSlot(r, slot, push(r, t, copy), op);
  }

  void emitUnpackPackets(int r, uint32_t t, const MscclppOp &op) {
    if (op.srcs.size() != 1 || op.dsts.size() != 1)
      fail(op.path, "an upkt has one src_buff and one dst_buff");
    PlanOp copy;
    copy.kind = OpKind::Copy;
    copy.srcs = {local(r, op, op.srcs.front(), "src_buff")};
    copy.dsts = {local(r, op, op.dsts.front(), "dst_buff")};
    noteWrite(r, t, op, copy.dsts.front());
    const BufRef slot = copy.srcs.front();
    readSlot(r, push(r, t, copy), slot, op);
  }

  /// repkt, respkt, recpkt, recspkt: the packets of src_buff[1..] folded in order, then
  /// src_buff[0] (the executor's order), into dst_buff[0]; recpkt and recspkt also write the
  /// result as local packets (dst_buff[1]), respkt and recspkt to peers (the rest).
  void emitReducePackets(int r, uint32_t t, const MscclppOp &op) {
    const bool copies = op.type == MscclppOpType::ReduceCopyPackets ||
                        op.type == MscclppOpType::ReduceCopySendPackets;
    const bool sends = op.type == MscclppOpType::ReduceSendPackets ||
                       op.type == MscclppOpType::ReduceCopySendPackets;
    const size_t firstRemote = copies ? 2 : 1;
    if (op.srcs.empty() || op.dsts.size() < firstRemote || (!sends && op.dsts.size() != firstRemote))
      fail(op.path, "a packet reduction has src_buff (data, then packets) and dst_buff (data" +
                        std::string(copies ? ", local packets" : "") +
                        (sends ? ", then peers' packets)" : ")"));
    PlanOp fold;
    for (size_t i = 1; i < op.srcs.size(); ++i) fold.srcs.push_back(local(r, op, op.srcs[i], "src_buff"));
    fold.srcs.push_back(local(r, op, op.srcs.front(), "src_buff[0]"));
    fold.kind = fold.srcs.size() == 1 ? OpKind::Copy : OpKind::Reduce;
    const BufRef dst = local(r, op, op.dsts.front(), "dst_buff[0]");
    fold.dsts = {dst};
    noteWrite(r, t, op, dst);
    const Handle h = push(r, t, fold);
    for (size_t i = 1; i < op.srcs.size(); ++i) readSlot(r, h, fold.srcs[i - 1], op);
    if (copies) emitCopyPackets(r, t, localPacketCopy(op, dst));
    for (size_t i = firstRemote; i < op.dsts.size(); ++i) {
      const auto [owner, slot] = remote(r, t, op, op.dsts[i], "dst_buff");
      packetSend(r, t, op, dst, owner, slot);
    }
  }

  /// The cpkt that recpkt's local packet write amounts to: its result into dst_buff[1].
  static MscclppOp localPacketCopy(const MscclppOp &op, const BufRef &result) {
    MscclppOp copy = op;
    copy.type = MscclppOpType::CopyPackets;
    copy.srcs = {MscclppBuff{result.buf, 0, result.offset, result.length}};
    copy.dsts = {op.dsts[1]};
    return copy;
  }

  // ---- barriers -------------------------------------------------------------------------------

  void openBarrierAt(int r, uint32_t t, const MscclppOp &op) {
    const uint32_t occurrence = barrierCount[{r, t, op.barrierId}]++;
    const auto key = std::make_tuple(r, op.barrierId, occurrence);
    BarrierMember member{t, {}, {}};
    if (const std::optional<Handle> p = position(r, t)) member.before.push_back(*p);
    const auto &sends = mailSends[{r, mailboxBase + t}];
    if (!sends.empty())
      member.before.push_back(Handle{HandleKind::MailSend, mailboxBase + t, uint32_t(sends.size() - 1)});
    std::vector<BarrierMember> &members = barriers[key];
    members.push_back(member);
    openBarrier[{r, t}] = {key, members.size() - 1};
  }

  /// `h` runs after the thread block's open barrier; an op of its channel closes it.
  void noteAfterBarrier(int r, uint32_t t, Handle h, bool closes) {
    const auto it = openBarrier.find({r, t});
    if (it == openBarrier.end()) return;
    barriers[it->second.first][it->second.second].after.push_back(h);
    if (closes) openBarrier.erase(it);
  }

  void addBarrierDeps() {
    for (const auto &[key, members] : barriers)
      for (const BarrierMember &m : members)
        for (const Handle &a : m.after)
          for (const BarrierMember &other : members)
            if (other.threadBlock != m.threadBlock)
              for (const Handle &b : other.before) addDep(std::get<0>(key), a, b, "barrier");
  }

  // ---- 4. after emission -----------------------------------------------------------------------

  void checkAllWaited() const {
    for (const auto &[key, list] : signals) {
      const auto done = waitsDone.find(key);
      const size_t waited = done == waitsDone.end() ? 0 : done->second;
      if (waited < list.size())
        fail("gpus[" + std::to_string(std::get<0>(key)) + "]",
             "signals rank " + std::to_string(std::get<1>(key)) +
                 " that never waits for them (" + std::to_string(list.size() - waited) +
                 " left)");
    }
  }

  void resolveSlotReads() {
    for (const SlotRead &read : slotReads)
      for (uint32_t u = read.slot.offset; u < read.slot.offset + read.slot.length; ++u) {
        const auto it = slotWriters.find({read.rank, u});
        if (it == slotWriters.end())
          fail(read.path, "reads packets at tmp[" + std::to_string(u) + "] of rank " +
                              std::to_string(read.rank) +
                              " that no op writes: it would wait for them forever");
        addDep(read.rank, read.consumer, it->second, read.path);
      }
  }

  /// Event and Read handles as the receives they stand for, now that every rank is emitted.
  void expandSymbolicDeps() {
    for (auto &[key, list] : deps) {
      std::vector<Handle> concrete;
      for (const Handle &d : list) {
        if (d.kind == HandleKind::Event)
          concrete.insert(concrete.end(), events[d.channel].landed.begin(),
                          events[d.channel].landed.end());
        else if (d.kind == HandleKind::Read)
          concrete.push_back(events[d.channel].reads[d.index].recv);
        else
          concrete.push_back(d);
      }
      list = std::move(concrete);
    }
  }

  /// The receives of rank r's mailbox channel m that `h` waits for, directly or through the
  /// ops it waits for (its dependencies and its channel's earlier ops).
  const std::set<uint32_t> &recvsNeeded(int r, uint32_t m, const Handle &h,
                                        std::map<Handle, std::set<uint32_t>> &memo) {
    const auto found = memo.find(h);
    if (found != memo.end()) return found->second;
    memo[h]; // empty while visiting: dependencies are acyclic
    std::set<uint32_t> needs;
    const auto visit = [&](const Handle &d) {
      if (d.kind == HandleKind::MailRecv) {
        if (d.channel == m) needs.insert(d.index);
        return;
      }
      const std::set<uint32_t> &more = recvsNeeded(r, m, d, memo);
      needs.insert(more.begin(), more.end());
    };
    const auto it = deps.find({r, h});
    if (it != deps.end())
      for (const Handle &d : it->second) visit(d);
    if (h.kind != HandleKind::MailRecv && h.index > 0)
      visit(Handle{h.kind, h.channel, h.index - 1});
    return memo[h] = std::move(needs);
  }

  /// Lays out rank r's mailbox channel m: its sends in order, each after the receives of the
  /// same channel it needs (with those before them from the same sender), then the rest of the
  /// receives by the senders' order. Fills the positions of both.
  void layOutMailbox(int r, uint32_t m, std::map<Handle, uint32_t> &positions) {
    std::vector<MailSend> &sends = mailSends[{r, m}];
    std::vector<MailRecv> &recvs = mailRecvs[{r, m}];
    std::vector<PlanOp> &ops = plan.programs[size_t(r)].channel(m);
    std::vector<bool> placed(recvs.size());
    const auto placeRecv = [&](uint32_t j) {
      for (uint32_t k = 0; k <= j; ++k) // the same sender's earlier receives first (FIFO)
        if (!placed[k] && recvs[k].sender == recvs[j].sender) {
          placed[k] = true;
          PlanOp recv;
          recv.kind = OpKind::Recv;
          recv.recv = recvs[k].sender;
          recv.dsts = {recvs[k].slot};
          positions[Handle{HandleKind::MailRecv, m, k}] = uint32_t(ops.size());
          ops.push_back(recv);
        }
    };
    std::map<Handle, std::set<uint32_t>> memo;
    for (uint32_t i = 0; i < sends.size(); ++i) {
      for (uint32_t j : recvsNeeded(r, m, Handle{HandleKind::MailSend, m, i}, memo)) placeRecv(j);
      positions[Handle{HandleKind::MailSend, m, i}] = uint32_t(ops.size());
      ops.push_back(sends[i].op);
    }
    std::vector<uint32_t> rest;
    for (uint32_t j = 0; j < recvs.size(); ++j)
      if (!placed[j]) rest.push_back(j);
    std::stable_sort(rest.begin(), rest.end(), [&](uint32_t a, uint32_t b) {
      return recvs[a].senderIndex < recvs[b].senderIndex;
    });
    for (uint32_t j : rest) placeRecv(j);
  }

  OpRef resolve(const std::map<Handle, uint32_t> &positions, const Handle &h) const {
    if (h.kind == HandleKind::Op) return OpRef{h.channel, h.index};
    return OpRef{h.channel, positions.at(h)};
  }

  /// Every dependency as `after` (or, within one channel, a check of program order).
  void resolveDeps(int r, const std::map<Handle, uint32_t> &positions) {
    for (const auto &[key, list] : deps) {
      if (key.first != r) continue;
      const OpRef consumer = resolve(positions, key.second);
      PlanOp &op = plan.programs[size_t(r)].channels[consumer.channel].ops[consumer.op];
      for (const Handle &d : list) {
        const OpRef dep = resolve(positions, d);
        if (dep.channel == consumer.channel) {
          if (dep.op >= consumer.op)
            fail(depPaths.at(key), "waits for what its own thread block writes only later: it "
                                   "would wait forever");
          continue;
        }
        if (std::find(op.after.begin(), op.after.end(), dep) == op.after.end())
          op.after.push_back(dep);
      }
    }
  }

  void run() {
    for (const MscclppGpu &g : doc.gpus)
      mailboxBase = std::max(mailboxBase, uint32_t(g.threadBlocks.size()));
    unitsPerBlock = std::max(1u, plan.units / uint32_t(messageBlocks(plan.collective, plan.ranks)));
    nextLanding = plan.scratchUnits;
    for (int r = 0; r < plan.ranks; ++r) collectSignals(r);
    std::map<LinkKey, size_t> waitCount;
    for (int r = 0; r < plan.ranks; ++r) collectReads(r, waitCount);
    for (int r = 0; r < plan.ranks; ++r) emitRank(r);
    checkAllWaited();
    resolveSlotReads();
    addBarrierDeps();
    expandSymbolicDeps();
    plan.scratchUnits = std::max(plan.scratchUnits, nextLanding);
    for (int r = 0; r < plan.ranks; ++r) {
      std::map<Handle, uint32_t> positions;
      for (uint32_t m = mailboxBase; m < kMaxChannels; ++m)
        if (mailSends.count({r, m}) || mailRecvs.count({r, m})) layOutMailbox(r, m, positions);
      resolveDeps(r, positions);
    }
  }
};

} // namespace

void lowerMscclppOps(const MscclppPlan &doc, const std::string &origin,
                     const MscclppBufferMap &map, Plan &plan) {
  Lowering(doc, origin, map, plan).run();
}

} // namespace collplan
