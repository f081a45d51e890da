// The checked MSCCL++ execution plan (readMscclppPlan), before it becomes a collplan plan.
#pragma once

#include "runtime/core/Collective.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

/// The ops import turns into collplan ops (execution_kernel.hpp's handlers); the executor's
/// other ops (port and switch channels, semaphores, pipelines) are refused by name.
enum class MscclppOpType : uint8_t {
  Nop,
  Barrier,        ///< `barrier`: the rank's thread blocks of one barrier_id meet
  Put,            ///< `put`: remote writes, visible at the peer's wait after a signal
  Signal,         ///< `signal`, `rlxsignal` (relaxed: no fence for earlier writes)
  Wait,           ///< `wait`, `rlxwait`
  Get,            ///< `get`: reads of peers' buffers into local ones
  Copy,           ///< `copy`
  Reduce,         ///< `re`: folds its sources into dst_buff[0]
  ReduceSend,     ///< `res`: re, then the result written to peers (dst_buff[1..])
  ReadReduce,     ///< `rre`: src_buff[0] folded with peers' buffers (src_buff[1..])
  ReadReduceSend, ///< `rres`: rre, then the result written to peers (dst_buff[1..])
  PutPackets,     ///< `ppkt`: data written as packets (data and flag) into peers' scratch
  ReadPutPackets, ///< `rppkt`: local packets forwarded to peers' scratch
  CopyPackets,    ///< `cpkt`: local data written as packets into local scratch
  UnpackPackets,  ///< `upkt`: local packets, once they arrive, as data
  ReducePackets,  ///< `repkt`: packets folded, then src_buff[0], into dst_buff[0]
  ReduceSendPackets,     ///< `respkt`: repkt, then the result as packets to peers
  ReduceCopyPackets,     ///< `recpkt`: repkt, then the result also as local packets
  ReduceCopySendPackets, ///< `recspkt`: recpkt, then the result as packets to peers
};

/// A `src_buff`/`dst_buff` entry: a local buffer (`type`) or a peer's (`buffer_id`, an index
/// into the thread block's remote buffer references).
struct MscclppBuff {
  std::optional<BufferKind> local;
  uint32_t remote = 0; ///< meaningful when !local
  uint32_t index = 0, size = 0;
};

struct MscclppOp {
  MscclppOpType type = MscclppOpType::Nop;
  bool relaxed = false;    ///< rlxsignal, rlxwait
  uint32_t barrierId = 0;  ///< barrier: which of the rank's barriers
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
