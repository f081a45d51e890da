// The MSCCL XML algorithm as read from a file: header, GPUs, thread blocks and steps, checked.
#pragma once

#include "runtime/interop/MscclModel.h"
#include "runtime/interop/MscclXml.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collplan {

struct MscclStep {
  MscclStepType type = MscclStepType::Nop;
  BufferKind srcBuf = BufferKind::In, dstBuf = BufferKind::Out;
  uint32_t srcOff = 0, dstOff = 0, cnt = 0;
  int depTb = -1, depStep = -1; ///< -1: no dependency
  bool hasDep = false;
  int line = 0;
};

struct MscclThreadBlock {
  int send = -1, recv = -1; ///< peers; -1: none
  uint32_t chan = 0;
  std::vector<MscclStep> steps;
  int line = 0;
};

struct MscclGpu {
  uint32_t inChunks = 0, outChunks = 0, scratchChunks = 0;
  std::vector<MscclThreadBlock> tbs; ///< index = tb id
  int line = 0;
};

struct MscclAlgo {
  std::string name;
  MscclProtocol protocol = MscclProtocol::Simple;
  CollectiveKind collective = CollectiveKind::AllReduce;
  uint32_t channels = 1, chunksPerLoop = 1;
  bool inplace = false, outofplace = true;
  uint64_t minBytes = 0, maxBytes = 0;
  std::vector<MscclGpu> gpus; ///< index = gpu id
};

/// Every rank count, chunk count and channel count import accepts stays below these, so that
/// a small file cannot ask for huge allocations.
inline constexpr int kMscclMaxGpus = 1 << 16;
inline constexpr uint32_t kMscclMaxChunks = 1u << 20;
inline constexpr uint32_t kMscclMaxThreadBlocks = 1024; ///< MSCCL_MAX_NUM_THREAD_BLOCKS
/// The chunks of all GPUs' buffers together: PlanLoadOptions::maxProofUnits' default.
inline constexpr uint64_t kMscclMaxTotalChunks = uint64_t(1) << 26;

/// Reads and checks the XML document (names, ranges, ids, references, MSCCL's one thread
/// block per peer and channel). Throws PlanError "<origin>:<line>: <element>: <reason>".
MscclAlgo readMscclAlgo(std::string_view xml, const std::string &origin);

} // namespace collplan
