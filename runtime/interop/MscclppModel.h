// The checked MSCCL++ execution plan (readMscclppPlan), before it becomes a collplan plan.
#pragma once

#include "runtime/core/Collective.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// The ops import turns into collplan ops; the executor's other ops (reads of peers' memory,
/// packets, switch channels, semaphores, pipelines) are refused by name.
enum class MscclppOpType : uint8_t { Nop, Put, Signal, Wait, Copy, Reduce };

/// A `src_buff`/`dst_buff` entry: a local buffer (`type`) or a peer's (`buffer_id`, an index
/// into the thread block's remote buffer references).
struct MscclppBuff {
  std::optional<BufferKind> local;
  uint32_t remote = 0; ///< meaningful when !local
  uint32_t index = 0, size = 0;
};

struct MscclppOp {
  MscclppOpType type = MscclppOpType::Nop;
  std::vector<uint32_t> channelIds; ///< indices into the thread block's memory channels
  std::vector<MscclppBuff> srcs, dsts;
  std::string path; ///< `gpus[g].threadblocks[t].ops[o]`, for messages
};

struct MscclppThreadBlock {
  std::vector<MscclppOp> ops;
  std::vector<uint32_t> channels;      ///< indices into the GPU's channels
  std::vector<uint32_t> remoteBuffers; ///< indices into the GPU's remote buffers
};

struct MscclppRemoteBuffer {
  int rank = 0;
  BufferKind kind = BufferKind::Tmp;
};

struct MscclppGpu {
  uint32_t inputChunks = 0, outputChunks = 0, scratchChunks = 0;
  std::vector<int> channelPeers; ///< memory channels, each connected to one peer
  std::vector<MscclppRemoteBuffer> remoteBuffers;
  std::vector<MscclppThreadBlock> threadBlocks; ///< by `id`
};

struct MscclppPlan {
  std::string name;
  CollectiveKind collective = CollectiveKind::AllReduce;
  bool inplace = false;
  uint64_t minMessageSize = 0, maxMessageSize = 0;
  std::vector<MscclppGpu> gpus;
};

/// Reads the document strictly: unknown fields, wrong types, out-of-range numbers, ids out of
/// order, references to channels or buffers that do not exist, and ops or channel types import
/// does not support throw PlanError "<origin>: <field path>: <reason>".
MscclppPlan readMscclppPlan(std::string_view json, const std::string &origin);

} // namespace collplan
