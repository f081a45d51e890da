// readMscclppPlan: an MSCCL++ execution plan's JSON, checked field by field, as MscclppPlan.
#include "runtime/interop/MscclModel.h"
#include "runtime/interop/MscclppJson.h"
#include "runtime/interop/MscclppModel.h"

#include "runtime/plan/JsonFields.h"

#include <array>
#include <climits>

namespace collplan {
namespace {

using namespace json_access;

/// Ops of the executor (execution_plan.cc, getOpType) that import does not model: port channels
/// (proxied puts and their flush), switch channels (NVLS), pipelines and semaphores.
constexpr std::array<std::string_view, 10> kUnsupportedOps = {
    "pws",       "pwsf",     "flush",       "glres",      "glre",
    "gstore",    "gstorepkt", "pipeline",   "sem_acquire", "sem_release"};

/// Chunks per buffer import accepts (as many as the MSCCL XML import, kMscclMaxChunks).
constexpr uint32_t kMaxChunks = 1u << 20;

/// The executor's op names (execution_plan.cc, getOpType) that import models.
constexpr std::array<std::pair<std::string_view, MscclppOpType>, 21> kOpNames = {{
    {"nop", MscclppOpType::Nop},
    {"barrier", MscclppOpType::Barrier},
    {"put", MscclppOpType::Put},
    {"signal", MscclppOpType::Signal},
    {"rlxsignal", MscclppOpType::Signal},
    {"wait", MscclppOpType::Wait},
    {"rlxwait", MscclppOpType::Wait},
    {"get", MscclppOpType::Get},
    {"copy", MscclppOpType::Copy},
    {"re", MscclppOpType::Reduce},
    {"res", MscclppOpType::ReduceSend},
    {"rre", MscclppOpType::ReadReduce},
    {"rres", MscclppOpType::ReadReduceSend},
    {"ppkt", MscclppOpType::PutPackets},
    {"rppkt", MscclppOpType::ReadPutPackets},
    {"cpkt", MscclppOpType::CopyPackets},
    {"upkt", MscclppOpType::UnpackPackets},
    {"repkt", MscclppOpType::ReducePackets},
    {"respkt", MscclppOpType::ReduceSendPackets},
    {"recpkt", MscclppOpType::ReduceCopyPackets},
    {"recspkt", MscclppOpType::ReduceCopySendPackets},
}};

std::optional<MscclppOpType> parseOpType(std::string_view name) {
  for (const auto &[known, type] : kOpNames)
    if (name == known) return type;
  return std::nullopt;
}


BufferKind expectBuffer(const json &value, const Where &where) {
  const std::optional<BufferKind> kind = parseMscclBuffer(expectString(value, where));
  if (!kind) where.fail("unknown buffer type (expected one of: i, o, s)");
  return *kind;
}


/// Import reads memory channels only; port and switch channels are refused by name.
void expectMemoryChannel(const json &value, const Where &where) {
  const std::string type = expectString(value, where);
  if (type != "memory")
    where.fail("channel type \"" + type + "\" is not imported (memory channels only)");
}

uint32_t expectIndex(const json &value, const Where &where, size_t count) {
  if (count == 0) where.fail("refers to an element of an empty list");
  return uint32_t(expectInteger(value, where, 0, int64_t(count) - 1));
}

std::vector<uint32_t> indexList(const json &value, const Where &where, size_t count) {
  const json &list = expectArray(value, where);
  std::vector<uint32_t> out;
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(expectIndex(list[i], Where{where.origin, where.path[i]}, count));
  return out;
}

MscclppBuff parseBuff(const json &value, const Where &where, size_t remoteCount) {
  checkObject<2, 2>(value, where, {"index", "size"}, {"type", "buffer_id"});
  MscclppBuff buff;
  const FieldPath index = where.path / "index", size = where.path / "size";
  buff.index = uint32_t(expectInteger(value["index"], Where{where.origin, index}, 0, kMaxChunks));
  buff.size = uint32_t(expectInteger(value["size"], Where{where.origin, size}, 1, kMaxChunks));
  const json *type = member(value, "type");
  const json *id = member(value, "buffer_id");
  if (bool(type) == bool(id)) where.fail("needs exactly one of type and buffer_id");
  const FieldPath typePath = where.path / "type", idPath = where.path / "buffer_id";
  if (type) buff.local = expectBuffer(*type, Where{where.origin, typePath});
  else buff.remote = expectIndex(*id, Where{where.origin, idPath}, remoteCount);
  return buff;
}

std::vector<MscclppBuff> parseBuffs(const json &value, const Where &where, size_t remoteCount) {
  const json &list = expectArray(value, where);
  std::vector<MscclppBuff> out;
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(parseBuff(list[i], Where{where.origin, where.path[i]}, remoteCount));
  return out;
}

MscclppOpType expectOpName(const json &value, const Where &where) {
  const std::string name = expectString(value, where);
  if (const std::optional<MscclppOpType> type = parseOpType(name)) return *type;
  if (contains(kUnsupportedOps, name))
    where.fail("op \"" + name + "\" is not imported (port and switch channels, pipelines and "
               "semaphores have no collplan counterpart; memory-channel and packet ops are)");
  where.fail("unknown op \"" + name + "\"");
}

MscclppOp parseOp(const json &value, const Where &where, const MscclppThreadBlock &tb) {
  MscclppOp op;
  op.path = where.path.str();
  const FieldPath name = where.path / "name", ids = where.path / "channel_ids",
                  type = where.path / "channel_type", srcs = where.path / "src_buff",
                  dsts = where.path / "dst_buff";
  // The name first: an op import refuses should be named as such, not by its other fields.
  if (value.is_object() && value.contains("name")) {
    op.type = expectOpName(value["name"], Where{where.origin, name});
    op.relaxed = value["name"] == "rlxsignal" || value["name"] == "rlxwait";
  }
  checkObject<1, 8>(value, where, {"name"},
                    {"channel_ids", "channel_type", "src_buff", "dst_buff", "reduce_op",
                     "barrier_id", "num_threadblocks", "tbg_info"});
  if (member(value, "tbg_info"))
    throwPlanError(where.origin, where.path / "tbg_info",
                   "thread block groups (an op split over several thread blocks) are not "
                   "imported");
  if (const json *b = member(value, "barrier_id"))
    op.barrierId = uint32_t(expectInteger(*b, Where{where.origin, where.path / "barrier_id"}, 0,
                                          INT_MAX));
  if (const json *n = member(value, "num_threadblocks"))
    expectInteger(*n, Where{where.origin, where.path / "num_threadblocks"}, 1, INT_MAX);
  if (const json *t = member(value, "channel_type"))
    expectMemoryChannel(*t, Where{where.origin, type});
  if (const json *c = member(value, "channel_ids"))
    op.channelIds = indexList(*c, Where{where.origin, ids}, tb.channels.size());
  if (const json *s = member(value, "src_buff"))
    op.srcs = parseBuffs(*s, Where{where.origin, srcs}, tb.remoteBuffers.size());
  if (const json *d = member(value, "dst_buff"))
    op.dsts = parseBuffs(*d, Where{where.origin, dsts}, tb.remoteBuffers.size());
  return op;
}

/// A thread block's `channels` / `remote_buffer_refs`: memory-typed lists of GPU indices.
std::vector<uint32_t> parseRefs(const json &value, const Where &where, const char *typeKey,
                                const char *idsKey, size_t count) {
  const json &list = expectArray(value, where);
  std::vector<uint32_t> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const FieldPath item = where.path[i];
    const Where at{where.origin, item};
    if (!list[i].is_object()) at.fail("expected an object, got " + describeType(list[i]));
    const std::array<std::string_view, 2> required = {typeKey, idsKey};
    checkObject<2, 0>(list[i], at, required, {});
    const FieldPath type = item / typeKey, ids = item / idsKey;
    expectMemoryChannel(list[i][typeKey], Where{where.origin, type});
    for (uint32_t id : indexList(list[i][idsKey], Where{where.origin, ids}, count))
      out.push_back(id);
  }
  return out;
}

MscclppThreadBlock parseThreadBlock(const json &value, const Where &where, size_t id,
                                    const MscclppGpu &gpu) {
  checkObject<3, 1>(value, where, {"id", "ops", "channels"}, {"remote_buffer_refs"});
  const FieldPath idPath = where.path / "id", ops = where.path / "ops",
                  channels = where.path / "channels", refs = where.path / "remote_buffer_refs";
  if (expectInteger(value["id"], Where{where.origin, idPath}, 0, INT_MAX) != int64_t(id))
    throwPlanError(where.origin, idPath, "expected " + std::to_string(id) +
                                             " (thread blocks are listed by id)");
  MscclppThreadBlock tb;
  tb.channels = parseRefs(value["channels"], Where{where.origin, channels}, "channel_type",
                          "channel_ids", gpu.channelPeers.size());
  if (const json *r = member(value, "remote_buffer_refs"))
    tb.remoteBuffers = parseRefs(*r, Where{where.origin, refs}, "access_channel_type",
                                 "remote_buffer_ids", gpu.remoteBuffers.size());
  const json &list = expectArray(value["ops"], Where{where.origin, ops});
  if (list.size() > kMscclppMaxOperations)
    throwPlanError(where.origin, ops, std::to_string(list.size()) + " ops; a thread block "
                   "holds " + std::to_string(kMscclppMaxOperations) + " (MAX_OPERATION)");
  for (size_t o = 0; o < list.size(); ++o)
    tb.ops.push_back(parseOp(list[o], Where{where.origin, ops[o]}, tb));
  return tb;
}

int expectPeer(const json &value, const Where &where, int ranks, int self) {
  const int peer = int(expectInteger(value, where, 0, ranks - 1));
  if (peer == self) where.fail("a GPU does not connect to itself");
  return peer;
}

void parseChannels(const json &value, const Where &where, MscclppGpu &gpu, int ranks, int self) {
  const json &list = expectArray(value, where);
  for (size_t i = 0; i < list.size(); ++i) {
    const FieldPath item = where.path[i];
    const FieldPath type = item / "channel_type", peers = item / "connected_to";
    // The type first: a switch channel (no connected_to) should be named as such.
    if (list[i].is_object() && list[i].contains("channel_type"))
      expectMemoryChannel(list[i]["channel_type"], Where{where.origin, type});
    checkObject<2, 0>(list[i], Where{where.origin, item}, {"channel_type", "connected_to"}, {});
    const json &to = expectArray(list[i]["connected_to"], Where{where.origin, peers});
    for (size_t k = 0; k < to.size(); ++k)
      gpu.channelPeers.push_back(expectPeer(to[k], Where{where.origin, peers[k]}, ranks, self));
  }
}

void parseRemoteBuffers(const json &value, const Where &where, MscclppGpu &gpu, int ranks,
                        int self) {
  const json &list = expectArray(value, where);
  for (size_t i = 0; i < list.size(); ++i) {
    const FieldPath item = where.path[i];
    checkObject<3, 0>(list[i], Where{where.origin, item}, {"rank", "type", "access_channel_types"},
                      {});
    const FieldPath rank = item / "rank", type = item / "type",
                    access = item / "access_channel_types";
    MscclppRemoteBuffer buffer;
    buffer.rank = expectPeer(list[i]["rank"], Where{where.origin, rank}, ranks, self);
    buffer.kind = expectBuffer(list[i]["type"], Where{where.origin, type});
    const json &types = expectArray(list[i]["access_channel_types"], Where{where.origin, access});
    for (size_t k = 0; k < types.size(); ++k)
      expectMemoryChannel(types[k], Where{where.origin, access[k]});
    gpu.remoteBuffers.push_back(buffer);
  }
}

MscclppGpu parseGpu(const json &value, const Where &where, int id, int ranks) {
  checkObject<8, 0>(value, where,
                    {"id", "input_chunks", "output_chunks", "scratch_chunks", "channels",
                     "remote_buffers", "semaphores", "threadblocks"},
                    {});
  const FieldPath idPath = where.path / "id", in = where.path / "input_chunks",
                  out = where.path / "output_chunks", scratch = where.path / "scratch_chunks",
                  channels = where.path / "channels", remotes = where.path / "remote_buffers",
                  sems = where.path / "semaphores", tbs = where.path / "threadblocks";
  if (expectInteger(value["id"], Where{where.origin, idPath}, 0, INT_MAX) != id)
    throwPlanError(where.origin, idPath, "expected " + std::to_string(id) +
                                             " (the executor reads gpus[rank])");
  MscclppGpu gpu;
  const auto chunks = [&](const char *key, const FieldPath &path) {
    return uint32_t(expectInteger(value[key], Where{where.origin, path}, 0, kMaxChunks));
  };
  gpu.inputChunks = chunks("input_chunks", in);
  gpu.outputChunks = chunks("output_chunks", out);
  gpu.scratchChunks = chunks("scratch_chunks", scratch);
  parseChannels(value["channels"], Where{where.origin, channels}, gpu, ranks, id);
  parseRemoteBuffers(value["remote_buffers"], Where{where.origin, remotes}, gpu, ranks, id);
  if (!expectArray(value["semaphores"], Where{where.origin, sems}).empty())
    throwPlanError(where.origin, sems, "semaphores are not imported");
  const json &list = expectArray(value["threadblocks"], Where{where.origin, tbs});
  for (size_t t = 0; t < list.size(); ++t)
    gpu.threadBlocks.push_back(parseThreadBlock(list[t], Where{where.origin, tbs[t]}, t, gpu));
  return gpu;
}

void parseHeader(const json &doc, const std::string &origin, const FieldPath &root,
                 MscclppPlan &plan) {
  const FieldPath name = root / "name", coll = root / "collective", proto = root / "protocol",
                  inplace = root / "inplace", reuse = root / "reuse_resources",
                  threads = root / "num_threads_per_block",
                  dbl = root / "use_double_scratch_buffer", align = root / "buffer_alignment",
                  minSize = root / "min_message_size", maxSize = root / "max_message_size";
  plan.name = expectString(doc["name"], Where{origin, name});
  const std::string collective = expectString(doc["collective"], Where{origin, coll});
  const std::optional<CollectiveKind> kind = parseMscclCollective(collective);
  if (!kind)
    throwPlanError(origin, coll, "unknown collective \"" + collective +
                                     "\" (expected one of: " + mscclCollectiveNames() + ")");
  plan.collective = *kind;
  const std::string protocol = expectString(doc["protocol"], Where{origin, proto});
  if (protocol != "Simple" && protocol != "LL")
    throwPlanError(origin, proto, "protocol \"" + protocol + "\" is not imported (Simple, LL)");
  plan.inplace = expectBool(doc["inplace"], Where{origin, inplace});
  if (const json *r = member(doc, "reuse_resources"))
    if (expectBool(*r, Where{origin, reuse}))
      throwPlanError(origin, reuse, "reused scratch buffers are not imported");
  if (const json *t = member(doc, "num_threads_per_block"))
    expectInteger(*t, Where{origin, threads}, 1, 1024);
  if (const json *d = member(doc, "use_double_scratch_buffer")) expectBool(*d, Where{origin, dbl});
  if (const json *a = member(doc, "buffer_alignment"))
    expectInteger(*a, Where{origin, align}, 1, 4096);
  if (const json *m = member(doc, "min_message_size"))
    plan.minMessageSize = expectUnsigned64(*m, Where{origin, minSize});
  plan.maxMessageSize = UINT64_MAX;
  if (const json *m = member(doc, "max_message_size"))
    plan.maxMessageSize = expectUnsigned64(*m, Where{origin, maxSize});
  if (plan.minMessageSize > plan.maxMessageSize)
    throwPlanError(origin, minSize, std::to_string(plan.minMessageSize) +
                                        " is above max_message_size " +
                                        std::to_string(plan.maxMessageSize) +
                                        ": no call selects this plan");
}

} // namespace

MscclppPlan readMscclppPlan(std::string_view text, const std::string &origin) {
  const json doc = parseJsonText(text, origin);
  const FieldPath root;
  checkObject<5, 6>(doc, Where{origin, root}, {"name", "collective", "protocol", "inplace", "gpus"},
                    {"reuse_resources", "num_threads_per_block", "use_double_scratch_buffer",
                     "buffer_alignment", "min_message_size", "max_message_size"});
  MscclppPlan plan;
  parseHeader(doc, origin, root, plan);
  const FieldPath gpusPath = root / "gpus";
  const json &gpus = expectArray(doc["gpus"], Where{origin, gpusPath});
  if (gpus.empty() || gpus.size() > 4096)
    throwPlanError(origin, gpusPath, "expected 1 to 4096 GPUs, got " + std::to_string(gpus.size()));
  for (size_t g = 0; g < gpus.size(); ++g)
    plan.gpus.push_back(parseGpu(gpus[g], Where{origin, gpusPath[g]}, int(g), int(gpus.size())));
  return plan;
}

} // namespace collplan
