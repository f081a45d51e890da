// planFromJson: parses a plan document field by field (types, names, refs, channels), then validates it.
#include "runtime/plan/PlanJson.h"

#include "runtime/core/Limits.h"

#include "runtime/plan/BufRefText.h"
#include "runtime/plan/JsonFieldNames.h"
#include "runtime/plan/JsonFields.h"
#include "runtime/plan/JsonFile.h"
#include "runtime/plan/PlanValidate.h"
#include "runtime/plan/PlanVerify.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/Symmetry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <utility>

namespace collplan {

using nlohmann::json;
using namespace json_access;
namespace names = json_fields;

namespace {

constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();

/// What a program's ops span in units (operands, destinations and sends), plus one per op: the
/// measure the size guards on instantiation compare with PlanLoadOptions::maxProofUnits.
uint64_t programUnits(const RankProgram &program) {
  uint64_t units = 1;
  for (const Channel &channel : program.channels)
    for (const PlanOp &op : channel.ops)
      units += uint64_t(op.length()) * (op.numOperands() + op.dsts.size() + op.sends.size()) + 1;
  return units;
}

struct PlanReader {
  const std::string &origin;

  Where at(const FieldPath &path) const { return Where{origin, path}; }

  std::vector<BufRef> refs(const json &value, const FieldPath &path) const {
    expectArray(value, at(path));
    std::vector<BufRef> out;
    out.reserve(value.size());
    for (size_t k = 0; k < value.size(); ++k) {
      FieldPath refPath = path[k];
      std::string text = expectString(value[k], at(refPath));
      BufRef ref;
      std::string why;
      if (!parseBufRef(text, ref, why)) at(refPath).fail(why);
      out.push_back(ref);
    }
    return out;
  }

  int32_t peer(const json &value, const FieldPath &path) const {
    return int32_t(expectInteger(value, at(path), -kMaxI32 - 1, kMaxI32));
  }

  OpRef opRef(const json &value, const FieldPath &path) const {
    checkObject(value, at(path), names::kOpRefRequired, std::array<std::string_view, 0>{});
    OpRef ref;
    ref.channel = uint32_t(expectInteger(value["channel"], at(path / "channel"), 0, kMaxU32));
    ref.op = uint32_t(expectInteger(value["op"], at(path / "op"), 0, kMaxU32));
    return ref;
  }

  PlanOp op(const json &value, const FieldPath &path) const {
    checkObject(value, at(path), names::kOpRequired, names::kOpOptional);
    PlanOp op;
    FieldPath kindPath = path / "op";
    std::string kindName = expectString(value["op"], at(kindPath));
    auto kind = parseOpKind(kindName);
    if (!kind)
      at(kindPath).fail("unknown op kind \"" + kindName + "\" (expected one of: " + opKindNames() +
                        ")");
    op.kind = *kind;
    if (const json *v = member(value, "src")) op.srcs = refs(*v, path / "src");
    if (const json *v = member(value, "recv")) op.recv = peer(*v, path / "recv");
    if (const json *v = member(value, "recv_pos"))
      op.recvPos = uint32_t(expectInteger(*v, at(path / "recv_pos"), 0, kMaxU32));
    if (const json *v = member(value, "dst")) op.dsts = refs(*v, path / "dst");
    if (const json *v = member(value, "send")) {
      FieldPath sendsPath = path / "send";
      expectArray(*v, at(sendsPath));
      op.sends.reserve(v->size());
      for (size_t k = 0; k < v->size(); ++k) op.sends.push_back(peer((*v)[k], sendsPath[k]));
    }
    if (const json *v = member(value, "after")) {
      FieldPath afterPath = path / "after";
      expectArray(*v, at(afterPath));
      op.after.reserve(v->size());
      for (size_t k = 0; k < v->size(); ++k) op.after.push_back(opRef((*v)[k], afterPath[k]));
    }
    if (const json *v = member(value, "step"))
      op.step = int32_t(expectInteger(*v, at(path / "step"), -1, kMaxI32));
    return op;
  }

  Channel channel(const json &value, const FieldPath &path) const {
    checkObject(value, at(path), names::kChannelRequired, std::array<std::string_view, 0>{});
    FieldPath opsPath = path / "ops";
    const json &ops = expectArray(value["ops"], at(opsPath));
    Channel channel;
    channel.ops.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) channel.ops.push_back(op(ops[i], opsPath[i]));
    return channel;
  }

  RankProgram program(const json &value, const FieldPath &path, size_t index) const {
    checkObject(value, at(path), names::kProgramRequired, std::array<std::string_view, 0>{});
    int64_t rank = expectInteger(value["rank"], at(path / "rank"), 0, kMaxI32);
    if (size_t(rank) != index)
      at(path / "rank")
          .fail("is " + std::to_string(rank) + " but this is program " + std::to_string(index) +
                " (programs must be listed in rank order, one per rank)");
    return channels(value["channels"], path / "channels");
  }

  RankProgram channels(const json &value, const FieldPath &channelsPath) const {
    const json &channels = expectArray(value, at(channelsPath));
    if (channels.size() > kMaxChannels)
      at(channelsPath)
          .fail("has " + std::to_string(channels.size()) + " channels; a rank may have at most " +
                std::to_string(kMaxChannels));
    RankProgram program;
    program.channels.reserve(channels.size());
    for (size_t c = 0; c < channels.size(); ++c)
      program.channels.push_back(channel(channels[c], channelsPath[c]));
    return program;
  }

  double nonNegative(const json &value, const FieldPath &path) const {
    double v = expectNumber(value, at(path));
    if (!(v >= 0) || !std::isfinite(v)) at(path).fail("must be a finite number >= 0");
    return v;
  }

  Plan plan(const json &doc, const FieldPath &root, const PlanLoadOptions &options) const {
    checkObject(doc, at(root), names::kPlanRequired, names::kPlanOptional);
    Plan plan;
    header(doc, root, plan);
    opAndRoot(doc, root, plan);
    details(doc, root, plan);
    readPrograms(doc, root, options, plan);
    return plan;
  }

  /// The stage plans of a composed plan document, read and checked to compose, no program built.
  HierarchicalStages stages(const json &doc, const FieldPath &root,
                            const PlanLoadOptions &options) const {
    checkObject(doc, at(root), names::kPlanRequired, names::kPlanOptional);
    Plan plan;
    header(doc, root, plan);
    opAndRoot(doc, root, plan);
    details(doc, root, plan);
    const json *composed = member(doc, "composed");
    if (!composed) at(root / "composed").fail("missing: the plan is not composed of stages");
    plan.onlyRank = options.onlyRank;
    return readStages(*composed, root, options, plan);
  }

private:
  /// format, version, collective and ranks.
  void header(const json &doc, const FieldPath &root, Plan &plan) const {
    std::string format = expectString(doc["format"], at(root / "format"));
    if (format != names::kPlanFormatName)
      at(root / "format")
          .fail("expected \"" + std::string(names::kPlanFormatName) + "\", got \"" + format + '"');
    plan.formatVersion = int(expectInteger(doc["version"], at(root / "version"), -kMaxI32, kMaxI32));
    if (plan.formatVersion != kPlanFormatVersion)
      at(root / "version").fail(oldVersionReason("plan", plan.formatVersion, kPlanFormatVersion));

    std::string kindName = expectString(doc["collective"], at(root / "collective"));
    auto kind = parseCollectiveKind(kindName);
    if (!kind)
      at(root / "collective")
          .fail("unknown collective \"" + kindName + "\" (expected one of: " +
                collectiveKindNames() + ")");
    plan.collective = *kind;
    plan.ranks = int(expectInteger(doc["ranks"], at(root / "ranks"), -kMaxI32, kMaxI32));
    if (plan.ranks < 1) at(root / "ranks").fail("must be at least 1, got " + std::to_string(plan.ranks));
    if (plan.ranks > kMaxRanks) at(root / "ranks").fail(aboveLimit("ranks", plan.ranks, kMaxRanks));
  }

  /// op (exactly when the collective reduces) and root (exactly when it is rooted).
  void opAndRoot(const json &doc, const FieldPath &root, Plan &plan) const {
    if (const json *v = member(doc, "op")) {
      if (!needsReduceOp(plan.collective))
        at(root / "op").fail(std::string(toString(plan.collective)) +
                             " does not reduce; remove the op");
      std::string opName = expectString(*v, at(root / "op"));
      plan.op = parseReduceOp(opName);
      if (!plan.op)
        at(root / "op").fail("unknown reduction op \"" + opName + "\" (expected one of: " +
                             reduceOpNames() + ")");
    } else if (needsReduceOp(plan.collective)) {
      at(root / "op").fail("missing required field: " + std::string(toString(plan.collective)) +
                           " needs a reduction op (" + reduceOpNames() + ")");
    }
    if (const json *v = member(doc, "root")) {
      if (!needsRoot(plan.collective))
        at(root / "root").fail(std::string(toString(plan.collective)) +
                               " has no root; remove the field");
      plan.root = int(expectInteger(*v, at(root / "root"), -kMaxI32, kMaxI32));
    } else if (needsRoot(plan.collective)) {
      at(root / "root").fail("missing required field: " + std::string(toString(plan.collective)) +
                             " needs a root rank");
    }
  }

  /// algorithm, params, units, scratch_units, inplace_safe and predicted.
  void details(const json &doc, const FieldPath &root, Plan &plan) const {
    plan.algorithm = expectString(doc["algorithm"], at(root / "algorithm"));
    if (plan.algorithm.empty()) at(root / "algorithm").fail("must not be empty");
    if (const json *v = member(doc, "params")) {
      if (!v->is_object())
        at(root / "params").fail("expected an object, got " + describeType(*v));
      plan.params = *v;
    }
    plan.units = uint32_t(expectInteger(doc["units"], at(root / "units"), 0, kMaxU32));
    if (plan.units > kMaxUnits) at(root / "units").fail(aboveLimit("units", plan.units, kMaxUnits));
    if (const json *v = member(doc, "scratch_units")) {
      plan.scratchUnits = uint32_t(expectInteger(*v, at(root / "scratch_units"), 0, kMaxU32));
      if (plan.scratchUnits > kMaxUnits)
        at(root / "scratch_units").fail(aboveLimit("scratch_units", plan.scratchUnits, kMaxUnits));
    }
    if (const json *v = member(doc, "inplace_safe"))
      plan.inplaceSafe = expectBool(*v, at(root / "inplace_safe"));
    if (const json *v = member(doc, "reduction_order")) {
      if (!v->is_string() || *v != names::kRankReductionOrder)
        at(root / "reduction_order")
            .fail("must be \"rank\" (every reduction a left fold in rank order)");
      plan.rankOrderReductions = true;
    }
    if (const json *v = member(doc, "predicted")) {
      FieldPath p = root / "predicted";
      checkObject(*v, at(p), names::kPredictedRequired, std::array<std::string_view, 0>{});
      plan.predicted.alphaRounds = nonNegative((*v)["alpha_rounds"], p / "alpha_rounds");
      plan.predicted.beta = nonNegative((*v)["beta"], p / "beta");
    }
  }

  /// One program per rank, or only `options.onlyRank`'s: from "programs", or instantiated from
  /// the "symmetric" program.
  void readPrograms(const json &doc, const FieldPath &root, const PlanLoadOptions &options,
                    Plan &plan) const {
    const json *explicitPrograms = member(doc, "programs");
    const json *symmetric = member(doc, "symmetric");
    const json *composed = member(doc, "composed");
    if (composed && (explicitPrograms || symmetric))
      at(root / "composed")
          .fail("a composed plan stores its stage plans, not \"" +
                std::string(explicitPrograms ? "programs" : "symmetric") + "\" as well");
    if (explicitPrograms && symmetric)
      at(root / "symmetric")
          .fail("a plan has either \"programs\" (one per rank) or \"symmetric\" (rank 0's, "
                "instantiated per rank), not both");
    if (options.onlyRank >= plan.ranks)
      at(root / (symmetric ? "symmetric" : "programs"))
          .fail("has no program for rank " + std::to_string(options.onlyRank) + " (ranks is " +
                std::to_string(plan.ranks) + ")");
    plan.onlyRank = options.onlyRank;
    if (composed) {
      readComposed(*composed, root, options, plan);
      return;
    }
    if (symmetric) {
      readSymmetric(*symmetric, root / "symmetric", options, plan);
      return;
    }
    if (!explicitPrograms)
      at(root / "programs")
          .fail("missing required field (or \"symmetric\": rank 0's program for every rank)");
    FieldPath programsPath = root / "programs";
    const json &programs = expectArray(*explicitPrograms, at(programsPath));
    if (programs.size() != size_t(plan.ranks))
      at(programsPath)
          .fail("has " + std::to_string(programs.size()) + " programs but ranks is " +
                std::to_string(plan.ranks) + " (one program per rank)");
    plan.programs.resize(programs.size());
    for (size_t r = 0; r < programs.size(); ++r)
      if (plan.onlyRank < 0 || r == size_t(plan.onlyRank))
        plan.programs[r] = program(programs[r], programsPath[r], r);
  }

  /// Every rank's programs of a symmetric plan grow with ranks × rank 0's program: a small file
  /// could ask for billions of ops. Refused before anything is built when the units they would
  /// span exceed the proof's limit (four times it for a load without proof).
  void refuseOversizedInstantiation(const RankProgram &base, const FieldPath &path,
                                    const PlanLoadOptions &options, int ranks) const {
    refuseUnitsPastLimit(programUnits(base) * uint64_t(ranks), path, options,
                         "instantiated for every one of its " + std::to_string(ranks) +
                             " ranks, rank 0's program");
  }

  /// Refuses, at `path`, programs that would span more than the proof's limit (four times it
  /// for a load without proof) once built: `what` names them.
  void refuseUnitsPastLimit(uint64_t units, const FieldPath &path, const PlanLoadOptions &options,
                            const std::string &what) const {
    const uint64_t limit = options.verify ? options.maxProofUnits : 4 * options.maxProofUnits;
    if (units > limit)
      at(path).fail(what + " would span more than " + std::to_string(limit) +
                    " units (PlanLoadOptions::maxProofUnits" +
                    std::string(options.verify ? "" : " x 4 without proof") +
                    "); load one rank's program (onlyRank), or raise the limit for a source "
                    "you trust");
  }

  /// The "composed" member: the number of ranks per node and the stage plans its collective
  /// composes from, each read, validated and proven (as `options` ask) at its own size, from
  /// which each rank the load keeps builds its program (Composition.h). The plan's own fields
  /// must be what the stages compose.
  void readComposed(const json &value, const FieldPath &root, const PlanLoadOptions &options,
                    Plan &plan) const {
    const FieldPath path = root / "composed";
    HierarchicalStages stages = readStages(value, root, options, plan);
    if (plan.onlyRank < 0)
      refuseUnitsPastLimit(composedProgramSize(stages, plan.ranks).units, path, options,
                           "built for every one of its " + std::to_string(plan.ranks) +
                               " ranks, its stage programs");
    Plan built = composeHierarchical(stages, plan.ranks, plan.onlyRank);
    if (plan.units != built.units)
      at(root / "units").fail("is " + std::to_string(plan.units) + " but the stages compose to " +
                              std::to_string(built.units) + " units");
    if (plan.scratchUnits != built.scratchUnits)
      at(root / "scratch_units")
          .fail("is " + std::to_string(plan.scratchUnits) + " but the stages compose to " +
                std::to_string(built.scratchUnits) + " units of scratch");
    plan.programs = std::move(built.programs);
    plan.composition = std::move(built.composition);
  }

  /// The ranks per node and the stage plans of the "composed" member `value`, each read,
  /// validated and proven (as `options` ask) at its own size (for `plan.onlyRank`, the one
  /// program of each it takes), checked to compose into `plan`'s collective and op.
  HierarchicalStages readStages(const json &value, const FieldPath &root,
                                const PlanLoadOptions &options, const Plan &plan) const {
    const FieldPath path = root / "composed";
    checkObject(value, at(path), names::kComposedRequired, std::array<std::string_view, 0>{});
    const std::vector<StageRole> &roles = composedStages(plan.collective);
    if (roles.empty())
      at(root / "collective")
          .fail("a composed plan is an allreduce, allgather or reduce_scatter, not " +
                std::string(toString(plan.collective)));
    HierarchicalStages stages{plan.collective,
                              int(expectInteger(value["ranks_per_node"],
                                                at(path / "ranks_per_node"), 1, kMaxRanks)),
                              {}};
    const FieldPath stagesPath = path / "stages";
    const json &stageDocs = value["stages"];
    checkStageMembers(stageDocs, stagesPath, roles, plan.collective);
    // A load of one rank takes one program of each stage (its local rank's, its node's) and,
    // as any one-rank load, proves nothing: the stages are proven by whoever wrote the file
    // (plan-compile) and by every full load (plan-verify, proof records).
    const int L = stages.ranksPerNode, rank = plan.onlyRank;
    for (StageRole role : roles) {
      const std::string name(stageKey(role));
      PlanLoadOptions stageOptions = options;
      stageOptions.onlyRank = rank < 0 ? -1 : stageAcrossNodes(role) ? rank / L : rank % L;
      stages.plans.push_back(
          planFromJsonAt(stageDocs[name], origin, stagesPath / name.c_str(), stageOptions));
    }
    try {
      checkHierarchicalStages(stages, plan.ranks, rank);
    } catch (const std::invalid_argument &e) {
      at(path).fail(e.what());
    }
    if (plan.op != stages.plans.front().op)
      at(root / "op").fail("the stages reduce with " +
                           std::string(stages.plans.front().op
                                           ? toString(*stages.plans.front().op)
                                           : "no op"));
    return stages;
  }

  /// "stages" holds exactly the stages of `collective`'s composition.
  void checkStageMembers(const json &stageDocs, const FieldPath &path,
                         const std::vector<StageRole> &roles, CollectiveKind collective) const {
    if (!stageDocs.is_object()) at(path).fail("expected an object, got " + describeType(stageDocs));
    std::string expected;
    for (StageRole role : roles) {
      if (!stageDocs.contains(stageKey(role)))
        at(path / std::string(stageKey(role)).c_str()).fail("missing required field");
      expected += (expected.empty() ? "" : ", ") + std::string(stageKey(role));
    }
    for (auto it = stageDocs.begin(); it != stageDocs.end(); ++it)
      if (std::none_of(roles.begin(), roles.end(),
                       [&](StageRole role) { return stageKey(role) == it.key(); }))
        at(path / it.key().c_str())
            .fail("is not a stage of a composed " + std::string(toString(collective)) +
                  " (its stages: " + expected + ")");
  }

  /// The "symmetric" member: the group, the stride and rank 0's program, instantiated for every
  /// rank the load keeps (one rank's load costs that rank's program, whatever the rank count).
  void readSymmetric(const json &value, const FieldPath &path, const PlanLoadOptions &options,
                     Plan &plan) const {
    checkObject(value, at(path), names::kSymmetricRequired, names::kSymmetricOptional);
    const std::string groupName = expectString(value["group"], at(path / "group"));
    const std::optional<SymmetryGroup> group = parseSymmetryGroup(groupName);
    if (!group)
      at(path / "group")
          .fail("unknown symmetry group \"" + groupName + "\" (expected one of: " +
                symmetryGroupNames() + ")");
    PlanSymmetry symmetry{*group,
                          uint32_t(expectInteger(value["stride"], at(path / "stride"), 0, kMaxU32)),
                          {}};
    if (const json *v = member(value, "rank_ordered_receives")) {
      const FieldPath listPath = path / "rank_ordered_receives";
      expectArray(*v, at(listPath));
      for (size_t k = 0; k < v->size(); ++k)
        symmetry.rankOrderedReceives.push_back(opRef((*v)[k], listPath[k]));
    }
    const FieldPath programPath = path / "program";
    const json &program = value["program"];
    checkObject(program, at(programPath), names::kSymmetricProgramRequired,
                std::array<std::string_view, 0>{});
    RankProgram base = channels(program["channels"], programPath / "channels");
    checkSymmetryForm(plan, symmetry, base, origin, path);
    plan.symmetry = symmetry;
    if (plan.onlyRank < 0) refuseOversizedInstantiation(base, path, options, plan.ranks);
    plan.programs.resize(size_t(plan.ranks));
    for (int r = 0; r < plan.ranks; ++r)
      if (plan.onlyRank < 0 || r == plan.onlyRank)
        plan.programs[size_t(r)] = instantiateProgram(plan, symmetry, base, r);
  }
};

/// What the proof of `plan` spans (see PlanLoadOptions::maxProofUnits), counted up to just
/// past `limit`.
uint64_t proofUnits(const Plan &plan, uint64_t limit) {
  uint64_t units = 0;
  for (int r = 0; r < plan.ranks && units <= limit; ++r) {
    units += uint64_t(bufferUnits(plan, BufferKind::In, r)) +
             bufferUnits(plan, BufferKind::Out, r) + plan.scratchUnits;
    for (const Channel &channel : plan.programs[size_t(r)].channels)
      for (const PlanOp &op : channel.ops)
        units += uint64_t(op.length()) * (op.numOperands() + op.dsts.size() + op.sends.size());
  }
  return units;
}

}  // namespace

HierarchicalStages composedStagesFromJson(const json &doc, const std::string &origin,
                                          const PlanLoadOptions &options) {
  return PlanReader{origin}.stages(doc, FieldPath{}, options);
}

Plan planFromJsonAt(const json &doc, const std::string &origin, const FieldPath &path,
                    const PlanLoadOptions &options) {
  Plan plan = PlanReader{origin}.plan(doc, path, options);
  // Programs instantiated from a symmetric form hold its symmetry by construction: no rank is
  // instantiated a second time to compare.
  validatePlanAt(plan, origin, path, SymmetrySource::Instantiated);
  // A composed plan's stages were each proven at their own size while it was read, and the
  // composition of proven stages is proven by instantiation in the tests (CompositionTest): the
  // whole plan is proven again only while it fits the proof's limit.
  const bool fullProof = options.verify && plan.onlyRank < 0;
  const bool tooLarge = fullProof && proofUnits(plan, options.maxProofUnits) > options.maxProofUnits;
  if (fullProof && !(tooLarge && plan.composition)) {
    if (tooLarge)
      throwPlanError(origin, path,
                     "too large to prove while loading: its buffers and ops span more than " +
                         std::to_string(options.maxProofUnits) +
                         " units over all ranks (PlanLoadOptions::maxProofUnits); load it "
                         "unproven only if you trust its source");
    const VerifyResult proof = verifyPlan(plan);
    if (!proof.ok()) {
      const PlanProblem &first = proof.problems.front();
      const std::string prefix = path.str();
      std::string reason = "does not compute its " + std::string(toString(plan.collective)) +
                           ": " + first.message;
      if (proof.problems.size() > 1)
        reason += " (and " + std::to_string(proof.problems.size() - 1) +
                  " more problems: plan-verify lists them)";
      throw PlanError(origin, prefix.empty() ? first.path : prefix + "." + first.path, reason);
    }
  }
  return plan;
}

Plan planFromJson(const json &doc, const std::string &origin, const PlanLoadOptions &options) {
  return planFromJsonAt(doc, origin, FieldPath(), options);
}

}  // namespace collplan
