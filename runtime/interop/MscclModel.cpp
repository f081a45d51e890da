// The MSCCL XML vocabulary: names of step types, buffers and collectives.
#include "runtime/interop/MscclModel.h"

#include <array>
#include <utility>

namespace collplan {

namespace {

constexpr std::array<std::pair<MscclStepType, std::string_view>, 9> kStepTypes{{
    {MscclStepType::Send, "s"},
    {MscclStepType::Recv, "r"},
    {MscclStepType::RecvCopySend, "rcs"},
    {MscclStepType::RecvReduceSend, "rrs"},
    {MscclStepType::RecvReduceCopy, "rrc"},
    {MscclStepType::RecvReduceCopySend, "rrcs"},
    {MscclStepType::Copy, "cpy"},
    {MscclStepType::Reduce, "re"},
    {MscclStepType::Nop, "nop"},
}};

constexpr std::array<std::pair<CollectiveKind, std::string_view>, 4> kCollectives{{
    {CollectiveKind::AllReduce, "allreduce"},
    {CollectiveKind::AllGather, "allgather"},
    {CollectiveKind::ReduceScatter, "reducescatter"},
    {CollectiveKind::AllToAll, "alltoall"},
}};

} // namespace

std::string_view toString(MscclStepType type) {
  for (const auto &[t, name] : kStepTypes)
    if (t == type) return name;
  return "?";
}

std::optional<MscclStepType> parseMscclStepType(std::string_view name) {
  for (const auto &[t, n] : kStepTypes)
    if (n == name) return t;
  return std::nullopt;
}

std::string mscclStepTypeNames() {
  std::string out;
  for (const auto &[t, name] : kStepTypes) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

bool stepReceives(MscclStepType type) {
  return type == MscclStepType::Recv || type == MscclStepType::RecvCopySend ||
         type == MscclStepType::RecvReduceSend || type == MscclStepType::RecvReduceCopy ||
         type == MscclStepType::RecvReduceCopySend;
}
bool stepSends(MscclStepType type) {
  return type == MscclStepType::Send || type == MscclStepType::RecvCopySend ||
         type == MscclStepType::RecvReduceSend || type == MscclStepType::RecvReduceCopySend;
}
bool stepReadsSrc(MscclStepType type) {
  return type == MscclStepType::Send || type == MscclStepType::RecvReduceSend ||
         type == MscclStepType::RecvReduceCopy || type == MscclStepType::RecvReduceCopySend ||
         type == MscclStepType::Copy || type == MscclStepType::Reduce;
}
bool stepWritesDst(MscclStepType type) {
  return type == MscclStepType::Recv || type == MscclStepType::RecvCopySend ||
         type == MscclStepType::RecvReduceCopy || type == MscclStepType::RecvReduceCopySend ||
         type == MscclStepType::Copy || type == MscclStepType::Reduce;
}

std::string_view mscclBufferName(BufferKind buf) {
  switch (buf) {
  case BufferKind::In: return "i";
  case BufferKind::Out: return "o";
  case BufferKind::Tmp: return "s";
  }
  return "?";
}

std::optional<BufferKind> parseMscclBuffer(std::string_view name) {
  if (name == "i") return BufferKind::In;
  if (name == "o") return BufferKind::Out;
  if (name == "s") return BufferKind::Tmp;
  return std::nullopt;
}

std::optional<std::string_view> mscclCollectiveName(CollectiveKind kind) {
  for (const auto &[k, name] : kCollectives)
    if (k == kind) return name;
  return std::nullopt;
}

std::optional<CollectiveKind> parseMscclCollective(std::string_view name) {
  for (const auto &[k, n] : kCollectives)
    if (n == name) return k;
  return std::nullopt;
}

std::string mscclCollectiveNames() {
  std::string out;
  for (const auto &[k, name] : kCollectives) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

} // namespace collplan
