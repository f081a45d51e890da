// mscclppJsonToPlan: the plan's header and buffers, its ops lowered (MscclppLower); then proven.
#include "runtime/interop/Imported.h"
#include "runtime/interop/MscclppJson.h"
#include "runtime/interop/MscclppLower.h"
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
  if (doc.inplace && doc.collective == CollectiveKind::ReduceScatter)
    throw PlanError(origin, "inplace",
                    "an in-place-only reducescatter writes its result into its input, which "
                    "collplan plans only read");
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

/// An in-place-only plan reads its input through the output buffer (MscclppBufferMap): the
/// plan first copies `in` to where an in-place call has it, a copy onto itself in place.
void addInPlacePrelude(Plan &plan, const MscclppBufferMap &map, int r) {
  const uint32_t units = bufferUnits(plan, BufferKind::In, r);
  if (units == 0) return;
  PlanOp copy;
  copy.kind = OpKind::Copy;
  copy.srcs = {BufRef{BufferKind::In, 0, units}};
  copy.dsts = {map(r, BufRef{BufferKind::In, 0, units})};
  plan.programs[size_t(r)].channel(0).push_back(copy);
}

/// Every other channel's first op waits for the prelude (channel 0's first op).
void orderAfterPrelude(RankProgram &program) {
  if (program.channels.empty() || program.channels[0].ops.empty()) return;
  for (size_t c = 1; c < program.channels.size(); ++c)
    if (!program.channels[c].ops.empty())
      program.channels[c].ops.front().after.push_back(OpRef{0, 0});
}

} // namespace

Plan mscclppJsonToPlan(std::string_view json, const std::string &origin) {
  return importMscclppJson(json, origin).plan;
}

ImportedPlan importMscclppJson(std::string_view json, const std::string &origin) {
  const MscclppPlan doc = readMscclppPlan(json, origin);
  ImportedPlan imported{planHeader(doc, origin),
                        SizeRange{doc.minMessageSize, doc.maxMessageSize}};
  Plan &plan = imported.plan;
  const MscclppBufferMap map{doc.inplace,
                             plan.units / uint32_t(messageBlocks(plan.collective, plan.ranks)),
                             plan.collective};
  if (doc.inplace)
    for (int r = 0; r < plan.ranks; ++r) addInPlacePrelude(plan, map, r);
  lowerMscclppOps(doc, origin, map, plan);
  if (doc.inplace)
    for (int r = 0; r < plan.ranks; ++r) orderAfterPrelude(plan.programs[size_t(r)]);
  proveImportedPlan(plan, origin);
  return imported;
}

FileVerification verifyMscclppJsonFile(const std::string &path, const VerifyFileOptions &options) {
  try {
    return verifyPlanOf(path, mscclppJsonToPlan(readWholeFile(path), path), options);
  } catch (const std::exception &e) { // unreadable, malformed, invalid or not proven
    return FileVerification{path, 0, {{"", e.what()}}, {}};
  }
}

} // namespace collplan
