// Verifiers and custom assembly formats of the `coll` operations.
#include "dialects/coll/CollOps.h"

#include "dialects/coll/CollectiveSpec.h"
#include "runtime/plan/OpShape.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::coll;
using collplan::CollectiveSpec;

#define GET_OP_CLASSES
#include "dialects/coll/CollOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Verifies the spec attributes of a collective, schedule or program op.
static LogicalResult verifySpec(Operation *op) {
  if (auto reason = CollectiveSpec::fromOp(op).check()) return op->emitOpError(*reason);
  return success();
}

/// The spec of the schedule or program that encloses `op`.
static CollectiveSpec enclosingSpec(Operation *op) {
  if (auto schedule = op->getParentOfType<ScheduleOp>())
    return CollectiveSpec::fromOp(schedule);
  return CollectiveSpec::fromOp(op->getParentOfType<ProgramOp>());
}

static LogicalResult checkRank(Operation *op, StringRef what, int64_t rank,
                               const CollectiveSpec &spec) {
  if (rank >= spec.ranks)
    return op->emitOpError() << what << " " << rank << " is out of range: the collective has "
                             << spec.ranks << " ranks";
  return success();
}

static LogicalResult checkSlice(Operation *op, std::optional<uint64_t> slice,
                                const CollectiveSpec &spec) {
  if (slice && static_cast<int64_t>(*slice) >= spec.slices)
    return op->emitOpError() << "slice " << *slice << " is out of range: chunks have "
                             << spec.slices << " slices";
  return success();
}

//===----------------------------------------------------------------------===//
// Level 1 and 2
//===----------------------------------------------------------------------===//

LogicalResult CollectiveOp::verify() { return verifySpec(*this); }
LogicalResult ScheduleOp::verify() { return verifySpec(*this); }

LogicalResult InputOp::verify() {
  CollectiveSpec spec = enclosingSpec(*this);
  if (failed(checkRank(*this, "rank", getRank(), spec))) return failure();
  int chunks = spec.inputChunks(static_cast<int>(getRank()));
  if (chunks == 0)
    return emitOpError() << "rank " << getRank() << " has no input in a "
                         << collplan::toString(spec.kind) << " with root " << spec.root;
  if (static_cast<int64_t>(getChunk()) >= chunks)
    return emitOpError() << "input chunk " << getChunk() << " is out of range: rank "
                         << getRank() << " contributes " << chunks << " chunk(s)";
  return checkSlice(*this, getSlice(), spec);
}

LogicalResult CopyOp::verify() { return checkRank(*this, "rank", getRank(), enclosingSpec(*this)); }

LogicalResult coll::ReduceOp::verify() {
  if (getOperands().size() < 2)
    return emitOpError() << "needs at least 2 operands (has " << getOperands().size() << ")";
  return checkRank(*this, "rank", getRank(), enclosingSpec(*this));
}

LogicalResult ReduceSendOp::verify() {
  if (getOperands().size() < 2)
    return emitOpError() << "needs at least 2 operands (has " << getOperands().size() << ")";
  CollectiveSpec spec = enclosingSpec(*this);
  if (failed(checkRank(*this, "rank", getRank(), spec))) return failure();
  return checkRank(*this, "destination rank", getDest(), spec);
}

LogicalResult DupOp::verify() {
  ArrayRef<int64_t> ranks = getRanks();
  if (ranks.size() < 2)
    return emitOpError() << "duplicates to at least 2 ranks (has " << ranks.size()
                         << "); use coll.copy for one";
  if (ranks.size() != getResults().size())
    return emitOpError() << "has " << getResults().size() << " results for " << ranks.size()
                         << " ranks";
  CollectiveSpec spec = enclosingSpec(*this);
  for (int64_t rank : ranks) {
    if (rank < 0) return emitOpError() << "rank " << rank << " is negative";
    if (failed(checkRank(*this, "rank", rank, spec))) return failure();
  }
  return success();
}

/// `%r:2 = coll.dup %v to ranks [1, 2]`
ParseResult DupOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand src;
  Type chunk = ChunkType::get(parser.getContext());
  if (parser.parseOperand(src) || parser.parseKeyword("to") || parser.parseKeyword("ranks") ||
      parser.resolveOperand(src, chunk, result.operands))
    return failure();
  Attribute ranks = DenseI64ArrayAttr::parse(parser, Type());
  if (!ranks || parser.parseOptionalAttrDict(result.attributes)) return failure();
  result.addAttribute(getRanksAttrName(result.name), ranks);
  result.addTypes(SmallVector<Type>(cast<DenseI64ArrayAttr>(ranks).size(), chunk));
  return success();
}

void DupOp::print(OpAsmPrinter &printer) {
  printer << " " << getSrc() << " to ranks [";
  llvm::interleaveComma(getRanks(), printer);
  printer << "]";
  printer.printOptionalAttrDict((*this)->getAttrs(), {getRanksAttrName()});
}

LogicalResult OutputOp::verify() {
  CollectiveSpec spec = enclosingSpec(*this);
  if (failed(checkRank(*this, "rank", getRank(), spec))) return failure();
  int chunks = spec.outputChunks(static_cast<int>(getRank()));
  if (chunks == 0)
    return emitOpError() << "rank " << getRank() << " has no output in a "
                         << collplan::toString(spec.kind) << " with root " << spec.root;
  if (static_cast<int64_t>(getChunk()) >= chunks)
    return emitOpError() << "output chunk " << getChunk() << " is out of range: rank "
                         << getRank() << " receives " << chunks << " chunk(s)";
  return checkSlice(*this, getSlice(), spec);
}

//===----------------------------------------------------------------------===//
// Level 3
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  if (failed(verifySpec(*this))) return failure();
  CollectiveSpec spec = CollectiveSpec::fromOp(*this);
  int blocks = collplan::messageBlocks(spec.kind, spec.ranks);
  if (blocks > 0 && getUnits() % blocks != 0)
    return emitOpError() << "units " << getUnits() << " must be a multiple of the "
                         << blocks << " blocks of a " << collplan::toString(spec.kind);
  return success();
}

/// Runs after the instructions verified: every rank has one program and transfers match.
LogicalResult ProgramOp::verifyRegions() {
  CollectiveSpec spec = CollectiveSpec::fromOp(*this);
  std::vector<bool> seen(spec.ranks, false);
  for (Operation &op : getBody().front()) {
    auto rankOp = dyn_cast<RankOp>(op);
    if (!rankOp) return op.emitOpError("is not allowed directly in a coll.program");
    int64_t rank = rankOp.getRank();
    if (rank >= spec.ranks) continue;  // reported by RankOp::verify
    if (seen[rank]) return rankOp.emitOpError() << "rank " << rank << " has two programs";
    seen[rank] = true;
  }
  for (int rank = 0; rank < spec.ranks; ++rank)
    if (!seen[rank]) return emitOpError() << "rank " << rank << " has no coll.rank program";

  // Every send must meet exactly one receive with the same id, peer pair, channel and length.
  struct Side {
    Operation *op = nullptr;
    int64_t from = 0, to = 0, length = 0, channel = 0;
  };
  llvm::DenseMap<int64_t, Side> sends, recvs;
  for (auto rankOp : getBody().front().getOps<RankOp>()) {
    for (Operation &op : rankOp.getBody().front()) {
      Instruction instr = readInstruction(&op);
      int64_t self = rankOp.getRank(), length = instr.length(), channel = instr.channel;
      for (auto [peer, id] : llvm::zip(instr.sends, instr.sendIds))
        if (!sends.try_emplace(id, Side{&op, self, peer, length, channel}).second)
          return op.emitOpError() << "reuses transfer id " << id;
      if (instr.recv &&
          !recvs.try_emplace(*instr.recvId, Side{&op, *instr.recv, self, length, channel}).second)
        return op.emitOpError() << "reuses transfer id " << *instr.recvId;
    }
  }
  for (auto &[id, send] : sends) {
    auto it = recvs.find(id);
    if (it == recvs.end())
      return send.op->emitOpError() << "sends transfer " << id << " to rank " << send.to
                                    << ", which never receives it";
    const Side &recv = it->second;
    if (recv.from != send.from || recv.to != send.to)
      return recv.op->emitOpError()
             << "receives transfer " << id << " from rank " << recv.from
             << " but rank " << send.from << " sends it to rank " << send.to;
    if (recv.length != send.length)
      return recv.op->emitOpError() << "receives " << recv.length << " units of transfer " << id
                                    << " but " << send.length << " are sent";
    if (recv.channel != send.channel)
      return recv.op->emitOpError() << "receives transfer " << id << " on channel "
                                    << recv.channel << " but it is sent on channel "
                                    << send.channel;
  }
  for (auto &[id, recv] : recvs)
    if (!sends.count(id))
      return recv.op->emitOpError() << "receives transfer " << id << " from rank " << recv.from
                                    << ", which never sends it";
  return success();
}

LogicalResult RankOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (static_cast<int64_t>(getRank()) >= static_cast<int64_t>(program.getRanks()))
    return emitOpError() << "rank " << getRank() << " is out of range: the program has "
                         << program.getRanks() << " ranks";
  return success();
}

namespace {

/// Parses `recv P id I` or `send P id I` after its keyword.
ParseResult parseEndpoint(OpAsmParser &parser, int64_t &peer, int64_t &id) {
  return failure(parser.parseInteger(peer) || parser.parseKeyword("id") ||
                 parser.parseInteger(id));
}

void printRef(OpAsmPrinter &printer, Attribute attr) {
  auto ref = cast<BufRefAttr>(attr);
  printer << stringifyBufferKind(ref.getBuffer()) << "[" << ref.getOffset() << ":"
          << ref.getOffset() + ref.getLength() << "]";
}

collplan::BufRef toRuntimeRef(Attribute attr) {
  auto ref = cast<BufRefAttr>(attr);
  return {static_cast<collplan::BufferKind>(static_cast<int>(ref.getBuffer())),
          static_cast<uint32_t>(ref.getOffset()), static_cast<uint32_t>(ref.getLength())};
}

}  // namespace

/// Parses the rest of a buffer ref whose keyword (`in`, `out`, `tmp`) was already read.
static Attribute parseRefAfterKeyword(OpAsmParser &parser, StringRef keyword) {
  int64_t begin = 0, end = 0;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLSquare() || parser.parseInteger(begin) || parser.parseColon() ||
      parser.parseInteger(end) || parser.parseRSquare())
    return {};
  if (begin < 0 || end < begin) {
    parser.emitError(loc, "unit range [") << begin << ":" << end << "] is empty or negative";
    return {};
  }
  return BufRefAttr::get(parser.getContext(), *symbolizeBufferKind(keyword), begin, end - begin);
}

ParseResult coll::parseInstruction(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  SmallVector<Attribute> srcs, dsts;
  SmallVector<int64_t> sendPeers, sendIds;
  std::optional<int64_t> recvPeer, recvId;
  int64_t recvPos = 0;
  // One list item: a buffer ref, or `recv`/`send` PEER id ID (whichever `endpoint` names).
  // Returns failure on a malformed item; sets `found` when an item was there at all.
  auto parseItem = [&](StringRef endpoint, SmallVectorImpl<Attribute> &refs,
                       bool &found) -> ParseResult {
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    found = succeeded(parser.parseOptionalKeyword(&keyword));
    if (!found) return success();
    if (keyword == endpoint) {
      int64_t peer, id;
      if (parseEndpoint(parser, peer, id)) return failure();
      if (endpoint == "send") {
        sendPeers.push_back(peer);
        sendIds.push_back(id);
        return success();
      }
      if (recvPeer) return parser.emitError(loc, "an instruction receives at most once");
      recvPeer = peer;
      recvId = id;
      recvPos = int64_t(refs.size());
      return success();
    }
    if (!symbolizeBufferKind(keyword))
      return parser.emitError(loc, "unknown buffer '")
             << keyword << "' (expected in, out or tmp, or " << endpoint << ")";
    Attribute ref = parseRefAfterKeyword(parser, keyword);
    if (!ref) return failure();
    refs.push_back(ref);
    return success();
  };
  auto parseList = [&](StringRef endpoint, SmallVectorImpl<Attribute> &refs) -> ParseResult {
    bool found = false;
    if (parseItem(endpoint, refs, found)) return failure();
    while (found && succeeded(parser.parseOptionalComma())) {
      if (parseItem(endpoint, refs, found)) return failure();
      if (!found) return parser.emitError(parser.getCurrentLocation(), "expected a list item");
    }
    return success();
  };
  if (parseList("recv", srcs) || parser.parseArrow() || parseList("send", dsts) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();

  result.addAttribute("srcs", b.getArrayAttr(srcs));
  result.addAttribute("dsts", b.getArrayAttr(dsts));
  result.addAttribute("send_peers", b.getDenseI64ArrayAttr(sendPeers));
  result.addAttribute("send_ids", b.getDenseI64ArrayAttr(sendIds));
  if (recvPeer) {
    result.addAttribute("recv_peer", b.getI64IntegerAttr(*recvPeer));
    result.addAttribute("recv_id", b.getI64IntegerAttr(*recvId));
    result.addAttribute("recv_pos", b.getI64IntegerAttr(recvPos));
  }
  return success();
}

void coll::printInstruction(OpAsmPrinter &printer, Operation *op) {
  auto srcs = op->getAttrOfType<ArrayAttr>("srcs");
  auto dsts = op->getAttrOfType<ArrayAttr>("dsts");
  auto sendPeers = op->getAttrOfType<DenseI64ArrayAttr>("send_peers");
  auto sendIds = op->getAttrOfType<DenseI64ArrayAttr>("send_ids");
  auto recvPeer = op->getAttrOfType<IntegerAttr>("recv_peer");
  auto recvId = op->getAttrOfType<IntegerAttr>("recv_id");
  auto recvPosAttr = op->getAttrOfType<IntegerAttr>("recv_pos");
  int64_t recvPos = recvPosAttr ? recvPosAttr.getInt() : 0;

  bool first = true;
  auto separate = [&] {
    printer << (first ? " " : ", ");
    first = false;
  };
  auto printRecv = [&] {
    separate();
    printer << "recv " << recvPeer.getInt() << " id " << recvId.getInt();
  };
  for (auto [index, src] : llvm::enumerate(srcs)) {
    if (recvPeer && static_cast<int64_t>(index) == recvPos) printRecv();
    separate();
    printRef(printer, src);
  }
  if (recvPeer && recvPos >= static_cast<int64_t>(srcs.size())) printRecv();
  printer << " ->";
  first = true;
  for (Attribute dst : dsts) {
    separate();
    printRef(printer, dst);
  }
  for (auto [peer, id] : llvm::zip(sendPeers.asArrayRef(), sendIds.asArrayRef())) {
    separate();
    printer << "send " << peer << " id " << id;
  }
  printer.printOptionalAttrDict(op->getAttrs(), {"srcs", "dsts", "send_peers", "send_ids",
                                                 "recv_peer", "recv_id", "recv_pos"});
}

namespace {

/// Every plan op kind, in OpKind order.
constexpr collplan::OpKind kAllOpKinds[] = {
    collplan::OpKind::Send,           collplan::OpKind::Recv,         collplan::OpKind::RecvReduce,
    collplan::OpKind::RecvReduceSend, collplan::OpKind::RecvCopySend, collplan::OpKind::Reduce,
    collplan::OpKind::Copy,           collplan::OpKind::Dup};

/// The level-3 op name of a plan op kind (without "coll."): the plan's name, except where it
/// would clash with a level-2 op (local_reduce, local_copy) or says less (dup_send).
std::string instructionName(collplan::OpKind kind) {
  switch (kind) {
  case collplan::OpKind::Reduce: return "local_reduce";
  case collplan::OpKind::Copy: return "local_copy";
  case collplan::OpKind::Dup: return "dup_send";
  default: return std::string(collplan::toString(kind));
  }
}

}  // namespace

Instruction coll::readInstruction(Operation *op) {
  Instruction instr;
  for (Attribute src : op->getAttrOfType<ArrayAttr>("srcs")) instr.srcs.push_back(toRuntimeRef(src));
  for (Attribute dst : op->getAttrOfType<ArrayAttr>("dsts")) instr.dsts.push_back(toRuntimeRef(dst));
  if (auto peer = op->getAttrOfType<IntegerAttr>("recv_peer")) {
    instr.recv = static_cast<int32_t>(peer.getInt());
    instr.recvId = static_cast<uint32_t>(op->getAttrOfType<IntegerAttr>("recv_id").getInt());
    if (auto pos = op->getAttrOfType<IntegerAttr>("recv_pos"))
      instr.recvPos = static_cast<uint32_t>(pos.getInt());
  }
  auto peers = op->getAttrOfType<DenseI64ArrayAttr>("send_peers");
  auto ids = op->getAttrOfType<DenseI64ArrayAttr>("send_ids");
  for (auto [peer, id] : llvm::zip(peers.asArrayRef(), ids.asArrayRef())) {
    instr.sends.push_back(static_cast<int32_t>(peer));
    instr.sendIds.push_back(static_cast<uint32_t>(id));
  }
  if (auto step = op->getAttrOfType<IntegerAttr>("step"))
    instr.step = static_cast<int32_t>(step.getInt());
  if (auto channel = op->getAttrOfType<IntegerAttr>("channel"))
    instr.channel = static_cast<uint32_t>(channel.getInt());
  for (collplan::OpKind kind : kAllOpKinds)
    if (op->getName().stripDialect() == instructionName(kind)) instr.kind = kind;
  return instr;
}

int64_t coll::residentRank(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto in = dyn_cast<InputOp>(def)) return int64_t(in.getRank());
  if (auto copy = dyn_cast<CopyOp>(def)) return int64_t(copy.getRank());
  if (auto reduce = dyn_cast<coll::ReduceOp>(def)) return int64_t(reduce.getRank());
  if (auto reduce = dyn_cast<ReduceSendOp>(def)) return int64_t(reduce.getDest());
  auto dup = cast<DupOp>(def);
  return dup.getRanks()[cast<OpResult>(value).getResultNumber()];
}

Operation *coll::createInstruction(OpBuilder &b, Location loc, const Instruction &op) {
  MLIRContext *ctx = b.getContext();
  auto refs = [&](const std::vector<collplan::BufRef> &list) {
    SmallVector<Attribute> attrs;
    for (const collplan::BufRef &r : list)
      attrs.push_back(BufRefAttr::get(ctx, static_cast<BufferKind>(r.buf), r.offset, r.length));
    return b.getArrayAttr(attrs);
  };
  SmallVector<int64_t> peers(op.sends.begin(), op.sends.end());
  SmallVector<int64_t> ids(op.sendIds.begin(), op.sendIds.end());
  OperationState state(loc, "coll." + instructionName(op.kind));
  state.addAttribute("srcs", refs(op.srcs));
  state.addAttribute("dsts", refs(op.dsts));
  state.addAttribute("send_peers", b.getDenseI64ArrayAttr(peers));
  state.addAttribute("send_ids", b.getDenseI64ArrayAttr(ids));
  if (op.recv) {
    state.addAttribute("recv_peer", b.getI64IntegerAttr(*op.recv));
    state.addAttribute("recv_id", b.getI64IntegerAttr(op.recvId.value_or(0)));
    state.addAttribute("recv_pos", b.getI64IntegerAttr(op.recvPos));
  }
  if (op.step >= 0) state.addAttribute("step", b.getI64IntegerAttr(op.step));
  if (op.channel > 0) state.addAttribute("channel", b.getI64IntegerAttr(op.channel));
  return b.create(state);
}

LogicalResult coll::verifyInstruction(Operation *op, collplan::OpKind kind) {
  if (op->getAttrOfType<DenseI64ArrayAttr>("send_peers").size() !=
      op->getAttrOfType<DenseI64ArrayAttr>("send_ids").size())
    return op->emitOpError("has different numbers of send peers and send ids");
  if (auto channel = op->getAttr("channel")) {
    auto value = dyn_cast<IntegerAttr>(channel);
    if (!value || value.getInt() < 0 || value.getInt() >= int64_t(collplan::kMaxChannels))
      return op->emitOpError() << "channel must be an integer in [0, " << collplan::kMaxChannels
                               << ")";
  }
  Instruction planOp = readInstruction(op);
  planOp.kind = kind;
  const char *field = nullptr;
  std::string reason = collplan::opShapeError(planOp, field);
  if (!reason.empty()) return op->emitOpError(reason);

  auto rankOp = op->getParentOfType<RankOp>();
  auto program = rankOp->getParentOfType<ProgramOp>();
  CollectiveSpec spec = CollectiveSpec::fromOp(program);
  int self = static_cast<int>(rankOp.getRank());
  auto checkPeer = [&](int64_t peer, StringRef what) -> LogicalResult {
    if (peer < 0 || peer >= spec.ranks)
      return op->emitOpError() << what << " rank " << peer << " is out of range: the program has "
                               << spec.ranks << " ranks";
    if (peer == self) return op->emitOpError() << what << " rank " << peer << " is itself";
    return success();
  };
  if (planOp.recv && failed(checkPeer(*planOp.recv, "recv"))) return failure();
  for (int32_t peer : planOp.sends)
    if (failed(checkPeer(peer, "send"))) return failure();

  int blocks = collplan::messageBlocks(spec.kind, spec.ranks);
  int64_t unitsPerBlock = blocks ? static_cast<int64_t>(program.getUnits()) / blocks : 0;
  auto capacity = [&](collplan::BufferKind buf) -> int64_t {
    switch (buf) {
    case collplan::BufferKind::In:
      return collplan::inputBlocks(spec.kind, spec.ranks, self, spec.root) * unitsPerBlock;
    case collplan::BufferKind::Out:
      return collplan::outputBlocks(spec.kind, spec.ranks, self, spec.root) * unitsPerBlock;
    case collplan::BufferKind::Tmp:
      return static_cast<int64_t>(program.getScratch());
    }
    return 0;
  };
  uint32_t length = planOp.length();
  auto checkRefs = [&](const std::vector<collplan::BufRef> &refs) -> LogicalResult {
    for (const collplan::BufRef &ref : refs) {
      if (ref.length != length)
        return op->emitOpError() << "mixes ranges of " << length << " and " << ref.length
                                 << " units";
      int64_t end = static_cast<int64_t>(ref.offset) + ref.length, cap = capacity(ref.buf);
      if (end > cap)
        return op->emitOpError() << collplan::toString(ref.buf) << "[" << ref.offset << ":"
                                 << end << "] is out of range: rank " << self << "'s "
                                 << collplan::toString(ref.buf) << " buffer has " << cap
                                 << " units";
    }
    return success();
  };
  return failure(failed(checkRefs(planOp.srcs)) || failed(checkRefs(planOp.dsts)));
}
