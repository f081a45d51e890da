// Level 2 -> level 3: buffer placement, matched transfers and instruction fusion.
#include "compiler/export/ScheduleToProgram.h"

#include "compiler/analysis/CostModel.h"
#include "compiler/export/RankOps.h"
#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// A level-3 instruction under construction.
using Instr = Instruction;

/// The channel a level-2 op asked for (its `channel` attribute), 0 when it names none.
uint32_t channelOf(Operation *op) {
  auto channel = op->getAttrOfType<IntegerAttr>("channel");
  return channel && channel.getInt() > 0 ? uint32_t(channel.getInt()) : 0;
}

/// The step a level-2 op carries (its port-model round), -1 when it has none.
int32_t stepOf(Operation *op) {
  auto step = op->getAttrOfType<IntegerAttr>("step");
  return step ? int32_t(step.getInt()) : -1;
}

/// A transfer whose receive is not emitted yet: it will be fused into the consumer.
struct PendingRecv {
  int from = 0;
  uint32_t id = 0;
  uint32_t channel = 0;  ///< the channel it travels on: its receive must run there too
  int32_t step = -1;     ///< the port-model round it arrives in
};

class ProgramBuilder {
public:
  explicit ProgramBuilder(ScheduleOp schedule)
      : schedule_(schedule), spec_(CollectiveSpec::fromOp(schedule)),
        operandRounds_(operandTransferRounds(schedule)), programs_(spec_.ranks),
        nextSlot_(spec_.ranks) {
    units_ = spec_.units();
    int blocks = messageBlocks(spec_.kind, spec_.ranks);
    unitsPerBlock_ = blocks > 0 ? units_ / blocks : 0;
    tokens_ = spec_.kind == CollectiveKind::Barrier;
  }

  FailureOr<ProgramOp> run();

private:
  struct ValueState {
    int rank = 0;
    int chunk = 0, slice = 0;
    std::optional<BufRef> home;          ///< where the value lives, once placed
    std::optional<PendingRecv> pending;  ///< received, receive not yet emitted
  };

  uint32_t unitOf(int chunk, int slice) const { return uint32_t(chunk * spec_.slices + slice); }
  uint32_t phaseOf(const ValueState &v) const {
    return unitsPerBlock_ ? unitOf(v.chunk, v.slice) % unitsPerBlock_ : 0;
  }
  BufRef ref(BufferKind buf, uint32_t unit) const {
    return tokens_ ? BufRef{buf, 0, 0} : BufRef{buf, unit, 1};
  }
  /// Input buffer unit of rank `rank`'s (chunk, slice).
  uint32_t inputUnit(int chunk, int slice) const {
    bool oneBlockIn = spec_.kind == CollectiveKind::AllGather || spec_.kind == CollectiveKind::Gather;
    return oneBlockIn ? uint32_t(slice) : unitOf(chunk, slice);
  }
  uint32_t outputUnit(int chunk, int slice) const {
    bool oneBlockOut = spec_.kind == CollectiveKind::ReduceScatter ||
                       spec_.kind == CollectiveKind::Scatter;
    return oneBlockOut ? uint32_t(slice) : unitOf(chunk, slice);
  }

  void define(Value v, int rank, int chunk, int slice) { values_[v] = {rank, chunk, slice}; }
  /// Chooses the home of a value produced at its rank by `producer`.
  BufRef place(Value v);
  /// A tmp unit of `phase` no other value of `rank` uses: values get their own units here, and
  /// coll-allocate-scratch shares units between values once the programs are ordered.
  BufRef allocateTmp(int rank, uint32_t phase);

  void emit(int rank, Instr instr) { programs_[rank].push_back(std::move(instr)); }
  uint32_t newTransfer() { return nextId_++; }
  /// Makes `v` (resident at `from`) arrive at `to` as `result` on `channel`: a send now, the
  /// receive deferred when `result` feeds exactly one reduction at `to`, else emitted now.
  void transfer(Value v, int to, Value result, int32_t step, uint32_t channel);
  /// Emits the receive of a deferred value into its home.
  /// Emits the pending receive of `v` (at the round it arrives in).
  void materialize(Value v);
  /// Operand refs of a reduction at `rank`, with at most one fused receive (one that travels
  /// on the reduction's own channel).
  void gatherOperands(Operation *op, ValueRange operands, int rank, Instr &instr);
  /// The round each operand of `op` arrives at `rank` in: a remote one's own transfer round
  /// (the reduction's step is its last operand's), a received one's pending receive on
  /// `channel`; -1 for one already here.
  std::vector<int32_t> arrivalRounds(Operation *op, ValueRange operands, int rank,
                                     uint32_t channel);
  /// The round operand `k` of reduction `op` (at step `step`) travels in when it is remote:
  /// the port model's (operandTransferRounds), else the reduction's own step.
  int32_t remoteOperandRound(Operation *op, size_t k, int32_t step) const;
  /// Whether `v` reaches `rank` as a message on `channel` (remote, or a receive not emitted).
  bool isReceived(Value v, int rank, uint32_t channel);
  /// Emits the owner's send of remote operand `v` to `rank`; returns the transfer id.
  uint32_t sendRemoteOperand(Value v, int rank, int32_t round, uint32_t channel);
  /// A reduction with two or more received operands, as the chain the executors fuse into
  /// one pass (FusedChains.h): operands in their order, each received one straight from the
  /// wire into an accumulator that the next instruction folds on (one-shot, a flat reduce's
  /// root: every peer's input read once, in place, instead of received into scratch first).
  /// `arrives`: arrivalRounds of its operands.
  void emitFoldChain(coll::ReduceOp reduce, int rank, int32_t step,
                     const std::vector<int32_t> &arrives);
  /// Fills transfersPerRound_ and lastInputRead_ from the schedule.
  void countTransfers();
  /// Whether each received operand of `reduce` is the only transfer its sender makes to
  /// `rank` in its round (so no message coalescing could join it with another).
  bool alonePerRound(coll::ReduceOp reduce, int rank, const std::vector<int32_t> &arrives);
  /// Adds the receive of transfer (`from`, `id`) to `instr` as its operand at `pos`.
  static void receiveInto(Instr &instr, int from, uint32_t id, uint32_t pos) {
    instr.recv = from;
    instr.recvId = id;
    instr.recvPos = pos;
  }
  static void sendFrom(Instr &instr, int to, uint32_t id) {
    instr.sends.push_back(to);
    instr.sendIds.push_back(id);
  }

  void visit(Operation &op);
  void visitInput(InputOp in);
  void visitCopy(CopyOp copy, int32_t step, uint32_t channel);
  void visitDup(DupOp dup, int32_t step, uint32_t channel);
  void visitReduce(coll::ReduceOp reduce, int32_t step);
  void visitReduceSend(ReduceSendOp reduce, int32_t step, uint32_t channel);
  void visitOutput(OutputOp out, int32_t step, uint32_t channel);
  void attachSends();
  FailureOr<ProgramOp> createProgramOp();

  ScheduleOp schedule_;
  CollectiveSpec spec_;
  TransferRounds operandRounds_;  ///< per reduction, the round each remote operand arrives
  int units_ = 0, unitsPerBlock_ = 0;
  bool tokens_ = false;
  uint32_t nextId_ = 0;
  std::vector<std::vector<Instr>> programs_;
  llvm::DenseMap<Value, ValueState> values_;
  std::vector<std::map<uint32_t, uint32_t>> nextSlot_;  // rank -> phase -> next k
  uint32_t scratchUnits_ = 0;
  /// Per rank, the last round an op other than the rank's own reductions reads its input.
  std::vector<int32_t> lastInputRead_;
  /// (from, to, round) -> transfers of the schedule between the two ranks in that round.
  llvm::DenseMap<std::tuple<int, int, int32_t>, int> transfersPerRound_;
};

BufRef ProgramBuilder::allocateTmp(int rank, uint32_t phase) {
  const uint32_t unit = phase + nextSlot_[rank][phase]++ * uint32_t(std::max(unitsPerBlock_, 1));
  scratchUnits_ = std::max(scratchUnits_, unit + 1);
  return ref(BufferKind::Tmp, unit);
}

BufRef ProgramBuilder::place(Value v) {
  ValueState &state = values_[v];
  for (Operation *user : v.getUsers())
    if (auto out = dyn_cast<OutputOp>(user))
      if (int(out.getRank()) == state.rank) {
        state.home = ref(BufferKind::Out, outputUnit(int(out.getChunk()),
                                                     int(out.getSlice().value_or(0))));
        return *state.home;
      }
  state.home = tokens_ ? ref(BufferKind::Tmp, 0) : allocateTmp(state.rank, phaseOf(state));
  return *state.home;
}

/// True when `result`'s only use is a reduction at its rank: its receive fuses into it.
static bool feedsOneReduction(Value result, int rank) {
  if (!result.hasOneUse()) return false;
  Operation *user = *result.getUsers().begin();
  if (auto r = dyn_cast<coll::ReduceOp>(user)) return int(r.getRank()) == rank;
  if (auto r = dyn_cast<ReduceSendOp>(user)) return int(r.getRank()) == rank;
  return false;
}

void ProgramBuilder::transfer(Value v, int to, Value result, int32_t step, uint32_t channel) {
  const ValueState &src = values_[v];
  uint32_t id = newTransfer();
  Instr send;
  send.kind = OpKind::Send;
  if (!tokens_) send.srcs = {*src.home};
  sendFrom(send, to, id);
  send.step = step;
  send.channel = channel;
  emit(src.rank, send);
  ValueState &dst = values_[result];
  dst.pending = PendingRecv{src.rank, id, channel, step};
  if (!feedsOneReduction(result, to) || tokens_) materialize(result);
}

void ProgramBuilder::materialize(Value v) {
  ValueState &state = values_[v];
  if (!state.pending) return;
  Instr recv;
  recv.kind = OpKind::Recv;
  receiveInto(recv, state.pending->from, state.pending->id, 0);
  if (!tokens_) recv.dsts = {place(v)};
  recv.step = state.pending->step;
  recv.channel = state.pending->channel;
  state.pending.reset();
  emit(state.rank, recv);
}

int32_t ProgramBuilder::remoteOperandRound(Operation *op, size_t k, int32_t step) const {
  auto rounds = operandRounds_.find(op);
  return rounds != operandRounds_.end() && k < rounds->second.size() ? int32_t(rounds->second[k])
                                                                     : step;
}

std::vector<int32_t> ProgramBuilder::arrivalRounds(Operation *op, ValueRange operands, int rank,
                                                   uint32_t channel) {
  const int32_t step = stepOf(op);
  std::vector<int32_t> arrives(operands.size(), -1);
  for (auto [k, v] : llvm::enumerate(operands)) {
    const ValueState &state = values_[v];
    if (state.rank != rank)
      arrives[k] = remoteOperandRound(op, k, step);
    else if (state.pending && state.pending->channel == channel)
      arrives[k] = state.pending->step;
  }
  return arrives;
}

bool ProgramBuilder::isReceived(Value v, int rank, uint32_t channel) {
  const ValueState &state = values_[v];
  return state.rank != rank || (state.pending && state.pending->channel == channel);
}

uint32_t ProgramBuilder::sendRemoteOperand(Value v, int rank, int32_t round, uint32_t channel) {
  ValueState &state = values_[v];
  if (state.pending) materialize(v);
  uint32_t id = newTransfer();
  Instr send;
  send.kind = OpKind::Send;
  send.srcs = {*state.home};
  sendFrom(send, rank, id);
  send.step = round;
  send.channel = channel;
  emit(state.rank, send);
  return id;
}

void ProgramBuilder::gatherOperands(Operation *op, ValueRange operands, int rank, Instr &instr) {
  instr.channel = channelOf(op);
  const std::vector<int32_t> arrives = arrivalRounds(op, operands, rank, instr.channel);
  // The reduction takes the message of the operand that arrives last straight from the wire
  // (single copy); one that arrives earlier is received into scratch in its own round, so its
  // sender's FIFO does not wait for the reduction.
  auto received = [&](size_t k) { return isReceived(operands[k], rank, instr.channel); };
  size_t fused = operands.size();
  for (size_t k = 0; k < operands.size(); ++k)
    if (received(k) && (fused == operands.size() || arrives[k] > arrives[fused])) fused = k;

  for (auto [k, v] : llvm::enumerate(operands)) {
    ValueState &state = values_[v];
    if (state.rank != rank) {  // a remote read: the owner sends, this rank receives
      const uint32_t id = sendRemoteOperand(v, rank, arrives[k], instr.channel);
      if (k == fused) {
        receiveInto(instr, state.rank, id, uint32_t(instr.srcs.size()));
        instr.step = arrives[k];  // an instruction that receives sits at its message's round
      } else {
        Instr recv;
        recv.kind = OpKind::Recv;
        receiveInto(recv, state.rank, id, 0);
        recv.step = arrives[k];
        recv.channel = instr.channel;
        BufRef slot = allocateTmp(rank, phaseOf(state));
        recv.dsts = {slot};
        emit(rank, recv);
        instr.srcs.push_back(slot);
      }
      continue;
    }
    if (k == fused && state.pending) {
      receiveInto(instr, state.pending->from, state.pending->id, uint32_t(instr.srcs.size()));
      instr.step = arrives[k];
      state.pending.reset();
      continue;
    }
    if (state.pending) materialize(v);
    if (!tokens_) instr.srcs.push_back(*state.home);
  }
}

void ProgramBuilder::visit(Operation &op) {
  const int32_t step = stepOf(&op);
  const uint32_t channel = channelOf(&op);
  llvm::TypeSwitch<Operation *>(&op)
      .Case<InputOp>([&](InputOp in) { visitInput(in); })
      .Case<CopyOp>([&](CopyOp copy) { visitCopy(copy, step, channel); })
      .Case<DupOp>([&](DupOp dup) { visitDup(dup, step, channel); })
      .Case<coll::ReduceOp>([&](coll::ReduceOp reduce) { visitReduce(reduce, step); })
      .Case<ReduceSendOp>([&](ReduceSendOp reduce) { visitReduceSend(reduce, step, channel); })
      .Case<OutputOp>([&](OutputOp out) { visitOutput(out, step, channel); });
}

void ProgramBuilder::visitInput(InputOp in) {
  int rank = int(in.getRank()), chunk = int(in.getChunk());
  int slice = int(in.getSlice().value_or(0));
  define(in.getResult(), rank, chunk, slice);
  values_[in.getResult()].home = ref(BufferKind::In, inputUnit(chunk, slice));
}

/// A copy to another rank is a transfer; on one rank, a local copy.
void ProgramBuilder::visitCopy(CopyOp copy, int32_t step, uint32_t channel) {
  const ValueState src = values_[copy.getSrc()];
  int to = int(copy.getRank());
  define(copy.getResult(), to, src.chunk, src.slice);
  if (to != src.rank) return transfer(copy.getSrc(), to, copy.getResult(), step, channel);
  Instr local;
  local.kind = OpKind::Copy;
  local.srcs = {*src.home};
  local.dsts = {place(copy.getResult())};
  local.step = step;
  local.channel = channel;
  if (!tokens_) emit(to, local);
}

/// One read, a write per destination: local ones into place, remote ones as sends.
void ProgramBuilder::visitDup(DupOp dup, int32_t step, uint32_t channel) {
  const ValueState src = values_[dup.getSrc()];
  Instr instr;
  instr.kind = OpKind::Dup;
  if (!tokens_) instr.srcs = {*src.home};
  instr.step = step;
  instr.channel = channel;
  for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks())) {
    define(result, int(rank), src.chunk, src.slice);
    if (int(rank) == src.rank) {
      if (!tokens_) instr.dsts.push_back(place(result));
      continue;
    }
    uint32_t id = newTransfer();
    sendFrom(instr, int(rank), id);
    values_[result].pending = PendingRecv{src.rank, id, channel, step};
  }
  if (instr.dsts.size() + instr.sends.size() == 1)
    instr.kind = instr.sends.empty() ? OpKind::Copy : OpKind::Send;
  emit(src.rank, instr);
  for (auto [result, rank] : llvm::zip(dup.getResults(), dup.getRanks()))
    if (int(rank) != src.rank && (!feedsOneReduction(result, int(rank)) || tokens_))
      materialize(result);
}

void ProgramBuilder::visitReduce(coll::ReduceOp reduce, int32_t step) {
  int rank = int(reduce.getRank());
  const ValueState &first = values_[reduce.getOperand(0)];
  define(reduce.getResult(), rank, first.chunk, first.slice);
  if (tokens_) {  // a token join is the receives themselves
    for (Value v : reduce.getOperands()) materialize(v);
    values_[reduce.getResult()].home = ref(BufferKind::Tmp, 0);
    return;
  }
  const uint32_t channel = channelOf(reduce);
  // Two operands, one in scratch and one from the wire, are already one pass: the chain pays
  // from three on. A message that shares its sender and round with another transfer here is
  // received in its round instead, where coalescing can join the two (recursive halving).
  if (reduce.getNumOperands() >= 3 &&
      llvm::count_if(reduce.getOperands(),
                     [&](Value v) { return isReceived(v, rank, channel); }) >= 2) {
    const std::vector<int32_t> arrives =
        arrivalRounds(reduce, reduce.getOperands(), rank, channel);
    if (alonePerRound(reduce, rank, arrives)) return emitFoldChain(reduce, rank, step, arrives);
  }
  Instr instr;
  instr.step = step;
  gatherOperands(reduce, reduce.getOperands(), rank, instr);
  instr.kind = instr.recv ? OpKind::RecvReduce : OpKind::Reduce;
  instr.dsts = {place(reduce.getResult())};
  emit(rank, instr);
}

void ProgramBuilder::emitFoldChain(coll::ReduceOp reduce, int rank, int32_t step,
                                   const std::vector<int32_t> &arrives) {
  const uint32_t channel = channelOf(reduce);
  const ValueRange operands = reduce.getOperands();
  const BufRef home = place(reduce.getResult());
  // Every instruction of the chain sits in the round its last message arrives in, after the
  // rank's sends of that round: the fused pass waits for all its messages anyway, and folding
  // earlier would hold the channel's later sends behind messages still on their way.
  int32_t round = step;
  size_t secondReceived = operands.size(), received = 0;
  bool localAfterFirst = false;
  for (size_t k = 0; k < operands.size(); ++k) {
    if (isReceived(operands[k], rank, channel)) {
      round = std::max(round, arrives[k]);
      if (++received == 2) secondReceived = k;
    } else if (k > secondReceived) {
      localAfterFirst = true;
    }
  }
  // The chain folds into the result's home when nothing held here is read after the home is
  // first written: no local operand after the chain's first instruction, and no send or copy
  // of the rank's input in a later round (an in-place call aliases the input to the output).
  // Otherwise it folds into a tmp unit and its last instruction writes home.
  const bool foldAtHome = !localAfterFirst && lastInputRead_[size_t(rank)] <= round;
  const BufRef acc = foldAtHome ? home : allocateTmp(rank, phaseOf(values_[reduce.getResult()]));

  Instr current;
  auto finish = [&](const BufRef &dst) {
    current.channel = channel;
    current.step = round;
    current.kind = !current.recv            ? (current.srcs.size() > 1 ? OpKind::Reduce : OpKind::Copy)
                   : current.srcs.empty()   ? OpKind::Recv
                                            : OpKind::RecvReduce;
    current.dsts = {dst};
    emit(rank, current);
    current = Instr{};
    current.srcs = {dst};
  };
  // Each instruction takes one message and the local operands around it in the fold, except
  // that a local operand does not join an instruction that only folds its message into the
  // accumulator (a chain link) when more messages follow: it opens the next instruction, so
  // the link stays in its chain and the next chain starts with it.
  size_t lastReceived = 0;
  for (size_t k = 0; k < operands.size(); ++k)
    if (isReceived(operands[k], rank, channel)) lastReceived = k;
  auto isChainLink = [&] {
    return current.recv && current.recvPos == 1 && current.srcs.size() == 1 &&
           current.srcs.front() == acc;
  };
  for (auto [k, v] : llvm::enumerate(operands)) {
    ValueState &state = values_[v];
    if (!isReceived(v, rank, channel)) {
      if (state.pending) materialize(v);
      if (k < lastReceived && isChainLink()) finish(acc);
      current.srcs.push_back(*state.home);
      continue;
    }
    if (current.recv) finish(acc);
    if (state.rank != rank) {
      receiveInto(current, state.rank, sendRemoteOperand(v, rank, arrives[k], channel),
                  uint32_t(current.srcs.size()));
    } else {
      receiveInto(current, state.pending->from, state.pending->id, uint32_t(current.srcs.size()));
      state.pending.reset();
    }
  }
  finish(home);
}

void ProgramBuilder::visitReduceSend(ReduceSendOp reduce, int32_t step, uint32_t channel) {
  int rank = int(reduce.getRank()), dest = int(reduce.getDest());
  const ValueState &first = values_[reduce.getOperand(0)];
  define(reduce.getResult(), dest, first.chunk, first.slice);
  Instr instr;
  instr.step = step;
  gatherOperands(reduce, reduce.getOperands(), rank, instr);
  uint32_t id = newTransfer();
  // One forwarding instruction only when the port model sends in the round after the
  // receive; a send it schedules later waits in scratch so the rounds between go first.
  if (instr.recv && forwardsNextRound(instr.step, step)) {
    instr.kind = OpKind::RecvReduceSend;
    sendFrom(instr, dest, id);
    emit(rank, instr);
  } else {  // reduce into scratch, then send
    instr.kind = instr.recv ? OpKind::RecvReduce : OpKind::Reduce;
    BufRef slot = allocateTmp(rank, phaseOf(values_[reduce.getResult()]));
    instr.dsts = {slot};
    emit(rank, instr);
    Instr send;
    send.kind = OpKind::Send;
    send.srcs = {slot};
    sendFrom(send, dest, id);
    send.step = step;
    send.channel = channel;
    emit(rank, send);
  }
  values_[reduce.getResult()].pending = PendingRecv{rank, id, channel, step};
  if (!feedsOneReduction(reduce.getResult(), dest)) materialize(reduce.getResult());
}

/// A value bound to the output: copied there unless it already lives there.
void ProgramBuilder::visitOutput(OutputOp out, int32_t step, uint32_t channel) {
  ValueState &state = values_[out.getValue()];
  if (tokens_) return materialize(out.getValue());
  BufRef target = ref(BufferKind::Out, outputUnit(int(out.getChunk()),
                                                  int(out.getSlice().value_or(0))));
  if (state.home && *state.home == target) return;
  Instr copy;
  copy.kind = OpKind::Copy;
  copy.srcs = {*state.home};
  copy.dsts = {target};
  copy.step = step;
  copy.channel = channel;
  emit(int(out.getRank()), copy);
}

/// Attaches a send to the receive that produced its source range earlier on the same rank
/// (nothing writes the range in between): recv + send -> recv_copy_send, recv_reduce + send ->
/// recv_reduce_send, when the port model forwards it in the next round (a send it schedules
/// later keeps its own place, so the rank's other sends can go first). Moving a send earlier
/// cannot deadlock: sends never wait. Sends are never
/// merged into a `dup`: one read feeding several writes needs the topology's duplication
/// feature, which only an explicit coll.dup asks for.
void ProgramBuilder::attachSends() {
  auto overlaps = [](const BufRef &a, const BufRef &b) {
    return a.buf == b.buf && a.offset < b.offset + b.length && b.offset < a.offset + a.length;
  };
  for (auto &program : programs_) {
    std::vector<Instr> fused;
    for (Instr &instr : program) {
      bool merged = false;
      if (instr.kind == OpKind::Send && instr.srcs.size() == 1 && instr.sends.size() == 1) {
        const BufRef &src = instr.srcs.front();
        for (size_t i = fused.size(); i-- > 0;) {
          Instr &prev = fused[i];
          bool produced = std::find(prev.dsts.begin(), prev.dsts.end(), src) != prev.dsts.end();
          if (produced) {
            if (prev.sends.empty() && prev.channel == instr.channel &&
                forwardsNextRound(prev.step, instr.step) &&
                (prev.kind == OpKind::Recv || prev.kind == OpKind::RecvReduce)) {
              prev.sends = instr.sends;
              prev.sendIds = instr.sendIds;
              prev.kind = prev.kind == OpKind::Recv ? OpKind::RecvCopySend
                                                    : OpKind::RecvReduceSend;
              merged = true;
            }
            break;
          }
          if (llvm::any_of(prev.dsts, [&](const BufRef &d) { return overlaps(d, src); })) break;
        }
      }
      if (!merged) fused.push_back(std::move(instr));
    }
    program = std::move(fused);
  }
}

FailureOr<ProgramOp> ProgramBuilder::createProgramOp() {
  OpBuilder b(schedule_);
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  auto program = b.create<ProgramOp>(
      schedule_.getLoc(), schedule_.getSymNameAttr(), schedule_.getKindAttr(),
      schedule_.getRanksAttr(), schedule_.getChunksAttr(), schedule_.getSlicesAttr(),
      schedule_.getOpAttr(), schedule_.getRootAttr(), schedule_.getAlgorithmAttr(),
      i64(units_), i64(scratchUnits_), schedule_.getSendsFirstAttr());
  Block *body = new Block();
  program.getBody().push_back(body);
  for (int rank = 0; rank < spec_.ranks; ++rank) {
    b.setInsertionPointToEnd(body);
    auto rankOp = b.create<RankOp>(schedule_.getLoc(), uint64_t(rank));
    Block *rankBody = new Block();
    rankOp.getBody().push_back(rankBody);
    b.setInsertionPointToEnd(rankBody);
    for (const Instr &instr : programs_[rank]) createInstruction(b, schedule_.getLoc(), instr);
  }
  markInPlaceSafety(program);
  return program;
}

void ProgramBuilder::countTransfers() {
  auto count = [&](int64_t from, int64_t to, int32_t round) {
    if (from != to) ++transfersPerRound_[{int(from), int(to), round}];
  };
  lastInputRead_.assign(size_t(spec_.ranks), -1);
  for (Operation &op : schedule_.getBodyBlock()) {
    const int32_t step = stepOf(&op);
    if (auto in = dyn_cast<InputOp>(op)) {
      const int rank = int(in.getRank());
      for (Operation *user : in.getResult().getUsers()) {
        auto reduce = dyn_cast<coll::ReduceOp>(user);
        if (!reduce || int(reduce.getRank()) != rank)
          lastInputRead_[size_t(rank)] = std::max(lastInputRead_[size_t(rank)], stepOf(user));
      }
    }
    if (auto copy = dyn_cast<CopyOp>(op)) {
      count(residentRank(copy.getSrc()), copy.getRank(), step);
    } else if (auto dup = dyn_cast<DupOp>(op)) {
      for (int64_t to : dup.getRanks()) count(residentRank(dup.getSrc()), to, step);
    } else if (auto send = dyn_cast<ReduceSendOp>(op)) {
      count(send.getRank(), send.getDest(), step);
    }
    if (!isa<coll::ReduceOp, ReduceSendOp>(op)) continue;
    const int64_t rank = isa<coll::ReduceOp>(op) ? cast<coll::ReduceOp>(op).getRank()
                                                 : cast<ReduceSendOp>(op).getRank();
    for (auto [k, v] : llvm::enumerate(op.getOperands()))
      count(residentRank(v), rank, remoteOperandRound(&op, k, step));
  }
}

bool ProgramBuilder::alonePerRound(coll::ReduceOp reduce, int rank,
                                   const std::vector<int32_t> &arrives) {
  const uint32_t channel = channelOf(reduce);
  for (auto [k, v] : llvm::enumerate(reduce.getOperands())) {
    if (!isReceived(v, rank, channel)) continue;
    const ValueState &state = values_[v];
    const int from = state.rank != rank ? state.rank : state.pending->from;
    if (transfersPerRound_.lookup({from, rank, arrives[k]}) > 1) return false;
  }
  return true;
}

FailureOr<ProgramOp> ProgramBuilder::run() {
  countTransfers();
  for (Operation &op : schedule_.getBodyBlock()) visit(op);
  attachSends();
  return createProgramOp();
}

}  // namespace

FailureOr<ProgramOp> lowerScheduleToProgram(ScheduleOp schedule) {
  return ProgramBuilder(schedule).run();
}

}  // namespace collplan
