// Symmetric plans: the group maps, the form check, instantiation of a rank's program, detection.
#include "runtime/plan/Symmetry.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/PlanValidate.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace collplan {
namespace {

constexpr std::array<std::string_view, 2> kGroupNames = {"rotation", "xor"};

bool isPowerOfTwo(uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

/// The chunks a reference covers inside one window of `units` units (the whole message).
struct RefChunks {
  uint32_t window = 0;  ///< which window of the buffer
  uint32_t first = 0;   ///< first chunk in the window
  uint32_t last = 0;    ///< last chunk in the window
  bool wholeChunks = false;
};

/// How a plan's peers and buffers move with the rank: peers by the group's map, buffers in
/// chunks of `stride` units in windows of `units`.
struct ChunkSpace {
  const Plan &plan;
  PlanSymmetry symmetry;

  int32_t peer(int32_t p, int rank) const {
    return symmetricImage(symmetry.group, p, rank, plan.ranks);
  }

  /// Where rank `rank`'s image of `op` puts its received operand: by the sender's rank on a
  /// rank-ordered receive (the lower rank's partial first), else where rank 0's op puts it.
  uint32_t recvPos(const PlanOp &op, int rank, bool rankOrdered) const {
    if (!rankOrdered || !op.recv) return op.recvPos;
    return peer(*op.recv, rank) < rank ? 0 : 1;
  }

  /// A buffer moves when chunks move and it spans whole messages (in, out, tmp alike).
  bool moves(BufferKind buffer) const {
    if (symmetry.stride == 0 || plan.units == 0) return false;
    const uint32_t size = bufferUnits(plan, buffer, 0);
    return size >= plan.units && size % plan.units == 0;
  }

  /// Null when the reference leaves its window (it then has no image as one range).
  std::optional<RefChunks> chunks(const BufRef &ref) const {
    const uint32_t stride = symmetry.stride;
    const uint32_t end = ref.offset + ref.length - 1;
    if (ref.offset / plan.units != end / plan.units) return std::nullopt;
    RefChunks out;
    out.window = ref.offset / plan.units;
    out.first = (ref.offset % plan.units) / stride;
    out.last = (end % plan.units) / stride;
    out.wholeChunks = ref.offset % stride == 0 && ref.length % stride == 0;
    return out;
  }

  /// Why every rank's image of `ref` is not one range, or empty when it is.
  std::string whyNotOneRange(const BufRef &ref) const {
    if (!moves(ref.buf)) return {};
    const std::optional<RefChunks> c = chunks(ref);
    if (!c)
      return formatBufRef(ref) + " crosses from one message window of " +
             std::to_string(plan.units) + " units into the next";
    if (c->first == c->last) return {};
    const std::string span = formatBufRef(ref) + " covers chunks " + std::to_string(c->first) +
                             "-" + std::to_string(c->last) + " (" +
                             std::to_string(symmetry.stride) + " units each)";
    if (symmetry.group == SymmetryGroup::Rotation)
      return span + "; rotated by some rank they wrap past the buffer's end, so that rank's "
                    "image is not one range (write one op per chunk)";
    const uint32_t count = c->last - c->first + 1;
    if (!c->wholeChunks || !isPowerOfTwo(count) || c->first % count != 0)
      return span + "; XOR maps only single chunks or aligned power-of-two runs of whole chunks "
                    "onto one range";
    return {};
  }

  BufRef image(const BufRef &ref, int rank) const {
    if (!moves(ref.buf)) return ref;
    const RefChunks c = *chunks(ref);
    const uint32_t stride = symmetry.stride;
    uint32_t firstImage = 0;
    if (c.first == c.last)
      firstImage = uint32_t(symmetricImage(symmetry.group, c.first, rank, plan.ranks));
    else  // an aligned power-of-two run under XOR: its images are the run r's high bits select
      firstImage = (c.first ^ uint32_t(rank)) & ~(c.last - c.first);
    BufRef out = ref;
    out.offset = c.window * plan.units + firstImage * stride + ref.offset % stride;
    return out;
  }
};

PlanOp instantiateOp(const ChunkSpace &space, const PlanOp &op, int rank, bool rankOrdered) {
  PlanOp out = op;  // mapped in place: one allocation per list, every rank's every op
  for (BufRef &ref : out.srcs) ref = space.image(ref, rank);
  for (BufRef &ref : out.dsts) ref = space.image(ref, rank);
  if (op.recv) out.recv = space.peer(*op.recv, rank);
  for (int32_t &peer : out.sends) peer = space.peer(peer, rank);
  out.recvPos = space.recvPos(op, rank, rankOrdered);
  return out;
}

/// Per channel and op of rank 0's program: whether its receive is rank-ordered.
std::vector<std::vector<bool>> rankOrderedMask(const PlanSymmetry &symmetry,
                                               const RankProgram &base) {
  std::vector<std::vector<bool>> mask(base.channels.size());
  for (size_t c = 0; c < base.channels.size(); ++c)
    mask[c].assign(base.channels[c].ops.size(), false);
  for (const OpRef &ref : symmetry.rankOrderedReceives)
    if (ref.channel < mask.size() && ref.op < mask[ref.channel].size())
      mask[ref.channel][ref.op] = true;
  return mask;
}

/// Whether an op can take its received operand's place by rank: one src beside the receive, the
/// received operand after it on rank 0 (every sender's rank is higher than 0).
bool canOrderByRank(const PlanOp &op) {
  return op.recv && op.srcs.size() == 1 && op.recvPos == 1;
}

/// The first place where a program differs from rank 0's instantiated for its rank.
struct SymmetryBreak {
  enum class Level : uint8_t { Program, Channel, Op };  ///< what differs: counts or an op
  Level level = Level::Op;
  int rank = 0;
  size_t channel = 0;
  size_t op = 0;
  std::string reason;
};

/// Whether `actual` is `op` of rank 0 instantiated for `rank` (instantiateOp, without building
/// it: the check runs over every op of every rank).
bool isImage(const ChunkSpace &space, const PlanOp &op, const PlanOp &actual, int rank,
             bool rankOrdered) {
  auto sameRefs = [&](const std::vector<BufRef> &refs, const std::vector<BufRef> &images) {
    if (refs.size() != images.size()) return false;
    for (size_t k = 0; k < refs.size(); ++k)
      if (!(space.image(refs[k], rank) == images[k])) return false;
    return true;
  };
  if (actual.kind != op.kind || actual.after != op.after || actual.step != op.step ||
      actual.recv.has_value() != op.recv.has_value() || actual.sends.size() != op.sends.size())
    return false;
  if (op.recv && *actual.recv != space.peer(*op.recv, rank)) return false;
  if (actual.recvPos != space.recvPos(op, rank, rankOrdered)) return false;
  for (size_t k = 0; k < op.sends.size(); ++k)
    if (actual.sends[k] != space.peer(op.sends[k], rank)) return false;
  return sameRefs(op.srcs, actual.srcs) && sameRefs(op.dsts, actual.dsts);
}

std::optional<SymmetryBreak> firstBreak(const Plan &plan, const PlanSymmetry &symmetry) {
  const RankProgram &base = plan.programs[0];
  const ChunkSpace space{plan, symmetry};
  const std::vector<std::vector<bool>> rankOrdered = rankOrderedMask(symmetry, base);
  for (int r = 1; r < plan.ranks; ++r) {
    const RankProgram &actual = plan.programs[size_t(r)];
    if (actual.channels.size() != base.channels.size())
      return SymmetryBreak{SymmetryBreak::Level::Program, r, 0, 0,
                           "has " + std::to_string(actual.channels.size()) +
                               " channels where rank 0's program has " +
                               std::to_string(base.channels.size())};
    for (size_t c = 0; c < base.channels.size(); ++c) {
      const std::vector<PlanOp> &want = base.channels[c].ops;
      const std::vector<PlanOp> &have = actual.channels[c].ops;
      for (size_t i = 0; i < std::min(want.size(), have.size()); ++i)
        if (!isImage(space, want[i], have[i], r, rankOrdered[c][i]))
          return SymmetryBreak{
              SymmetryBreak::Level::Op, r, c, i,
              "is " + planOpToJson(have[i]).dump() + ", but rank 0's op instantiated for rank " +
                  std::to_string(r) + " is " +
                  planOpToJson(instantiateOp(space, want[i], r, rankOrdered[c][i])).dump()};
      if (want.size() != have.size())
        return SymmetryBreak{SymmetryBreak::Level::Channel, r, c, 0,
                             "has " + std::to_string(have.size()) + " ops where rank 0's has " +
                                 std::to_string(want.size())};
    }
  }
  return std::nullopt;
}

/// `candidate` with the rank-ordered receives that make every program rank 0's instantiated,
/// or nothing: each break whose only difference is where an eligible op's received operand goes
/// marks that op and the check runs again.
std::optional<PlanSymmetry> withRankOrderedReceives(const Plan &plan, PlanSymmetry candidate) {
  const RankProgram &base = plan.programs[0];
  for (;;) {
    const std::optional<SymmetryBreak> broken = firstBreak(plan, candidate);
    if (!broken) return candidate;
    if (broken->level != SymmetryBreak::Level::Op) return std::nullopt;
    const OpRef ref{uint32_t(broken->channel), uint32_t(broken->op)};
    const PlanOp &op = base.channels[ref.channel].ops[ref.op];
    const bool marked = std::find(candidate.rankOrderedReceives.begin(),
                                  candidate.rankOrderedReceives.end(),
                                  ref) != candidate.rankOrderedReceives.end();
    if (marked || !canOrderByRank(op)) return std::nullopt;
    candidate.rankOrderedReceives.push_back(ref);
    std::sort(candidate.rankOrderedReceives.begin(), candidate.rankOrderedReceives.end(),
              [](const OpRef &a, const OpRef &b) {
                return std::tie(a.channel, a.op) < std::tie(b.channel, b.op);
              });
  }
}

std::string describe(const PlanSymmetry &symmetry) {
  return std::string(toString(symmetry.group)) + " symmetry (stride " +
         std::to_string(symmetry.stride) + ")";
}

/// Each rank-ordered receive names an op of rank 0's program that can take it, once.
void checkRankOrderedReceives(const PlanSymmetry &symmetry, const RankProgram &base,
                              const std::string &origin, const FieldPath &path) {
  const FieldPath list = path / "rank_ordered_receives";
  const std::vector<OpRef> &refs = symmetry.rankOrderedReceives;
  for (size_t k = 0; k < refs.size(); ++k) {
    const FieldPath at = list[k];
    const OpRef &ref = refs[k];
    const std::string name = "channels[" + std::to_string(ref.channel) + "].ops[" +
                             std::to_string(ref.op) + "]";
    if (ref.channel >= base.channels.size() || ref.op >= base.channels[ref.channel].ops.size())
      throwPlanError(origin, at, "names " + name + ", which rank 0's program does not have");
    if (!canOrderByRank(base.channels[ref.channel].ops[ref.op]))
      throwPlanError(origin, at,
                     "names " + name + ", which does not receive beside one src with the "
                     "received operand second (recv_pos 1), so it cannot fold by rank");
    for (size_t j = 0; j < k; ++j)
      if (refs[j] == ref)
        throwPlanError(origin, at, "names " + name + " twice (rank_ordered_receives[" +
                                       std::to_string(j) + "] already does)");
  }
}

}  // namespace

std::string_view toString(SymmetryGroup group) { return kGroupNames[size_t(group)]; }

std::optional<SymmetryGroup> parseSymmetryGroup(std::string_view name) {
  for (size_t i = 0; i < kGroupNames.size(); ++i)
    if (kGroupNames[i] == name) return SymmetryGroup(i);
  return std::nullopt;
}

std::string symmetryGroupNames() {
  std::string out;
  for (const std::string_view name : kGroupNames)
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

int32_t symmetricImage(SymmetryGroup group, int64_t x, int rank, int ranks) {
  if (group == SymmetryGroup::Xor) return int32_t(x ^ rank);
  return int32_t((x + rank) % ranks);
}

int32_t symmetricPreimage(SymmetryGroup group, int64_t x, int rank, int ranks) {
  if (group == SymmetryGroup::Xor) return int32_t(x ^ rank);
  return int32_t((x - rank % ranks + ranks) % ranks);
}

void checkSymmetryForm(const Plan &plan, const PlanSymmetry &symmetry, const RankProgram &base,
                       const std::string &origin, const FieldPath &path) {
  const std::string kind(toString(plan.collective));
  if (plan.ranks < 2)
    throwPlanError(origin, path, "a symmetric plan needs at least 2 ranks");
  if (needsRoot(plan.collective))
    throwPlanError(origin, path, kind + " has a root, so its ranks' programs are not symmetric");
  if (symmetry.group == SymmetryGroup::Xor && !isPowerOfTwo(uint64_t(plan.ranks)))
    throwPlanError(origin, path / "group",
                   "xor needs a power-of-two rank count, not " + std::to_string(plan.ranks));
  if (symmetry.stride != 0 && uint64_t(symmetry.stride) * uint64_t(plan.ranks) != plan.units)
    throwPlanError(origin, path / "stride",
                   std::to_string(symmetry.stride) + " is neither 0 nor units / ranks (" +
                       std::to_string(plan.units) + " / " + std::to_string(plan.ranks) + ")");
  checkRankOrderedReceives(symmetry, base, origin, path);
  const ChunkSpace space{plan, symmetry};
  const FieldPath program = path / "program";
  const FieldPath channels = program / "channels";
  for (size_t c = 0; c < base.channels.size(); ++c) {
    const FieldPath channel = channels[c];
    const FieldPath ops = channel / "ops";
    for (size_t i = 0; i < base.channels[c].ops.size(); ++i) {
      const PlanOp &op = base.channels[c].ops[i];
      const FieldPath opPath = ops[i];
      auto check = [&](const std::vector<BufRef> &refs, const char *member) {
        const FieldPath list = opPath / member;
        for (size_t k = 0; k < refs.size(); ++k)
          if (std::string why = space.whyNotOneRange(refs[k]); !why.empty())
            throwPlanError(origin, list[k], "under " + describe(symmetry) + ": " + why);
      };
      check(op.srcs, "src");
      check(op.dsts, "dst");
    }
  }
}

RankProgram instantiateProgram(const Plan &plan, const PlanSymmetry &symmetry,
                               const RankProgram &base, int rank) {
  const ChunkSpace space{plan, symmetry};
  const std::vector<std::vector<bool>> rankOrdered = rankOrderedMask(symmetry, base);
  RankProgram out;
  out.channels.resize(base.channels.size());
  for (size_t c = 0; c < base.channels.size(); ++c) {
    const std::vector<PlanOp> &from = base.channels[c].ops;
    std::vector<PlanOp> &ops = out.channels[c].ops;
    ops.reserve(from.size());
    for (size_t i = 0; i < from.size(); ++i)
      ops.push_back(instantiateOp(space, from[i], rank, rankOrdered[c][i]));
  }
  return out;
}

void checkSymmetryHolds(const Plan &plan, const std::string &origin, const FieldPath &path) {
  if (!plan.symmetry) return;
  checkSymmetryForm(plan, *plan.symmetry, plan.programs.at(0), origin, path / "symmetric");
  const std::optional<SymmetryBreak> broken = firstBreak(plan, *plan.symmetry);
  if (!broken) return;
  const FieldPath programs = path / "programs";
  const FieldPath program = programs[size_t(broken->rank)];
  const FieldPath channels = program / "channels";
  const FieldPath channel = channels[broken->channel];
  const FieldPath ops = channel / "ops";
  const FieldPath op = ops[broken->op];
  const FieldPath &where = broken->level == SymmetryBreak::Level::Op        ? op
                           : broken->level == SymmetryBreak::Level::Channel ? channel
                                                                            : program;
  throwPlanError(origin, where,
                 "breaks the plan's " + describe(*plan.symmetry) + ": " + broken->reason);
}

std::optional<PlanSymmetry> findSymmetry(const Plan &plan) {
  if (plan.ranks < 2 || needsRoot(plan.collective) || plan.onlyRank >= 0 ||
      plan.programs.size() != size_t(plan.ranks))
    return std::nullopt;
  std::vector<uint32_t> strides;
  if (plan.units != 0 && plan.units % uint32_t(plan.ranks) == 0)
    strides.push_back(plan.units / uint32_t(plan.ranks));
  strides.push_back(0);
  for (SymmetryGroup group : {SymmetryGroup::Rotation, SymmetryGroup::Xor}) {
    if (group == SymmetryGroup::Xor && !isPowerOfTwo(uint64_t(plan.ranks))) continue;
    for (uint32_t stride : strides) {
      const PlanSymmetry candidate{group, stride};
      try {
        checkSymmetryForm(plan, candidate, plan.programs[0], "", FieldPath());
      } catch (const PlanError &) {
        continue;
      }
      if (std::optional<PlanSymmetry> found = withRankOrderedReceives(plan, candidate))
        return found;
    }
  }
  return std::nullopt;
}

}  // namespace collplan
