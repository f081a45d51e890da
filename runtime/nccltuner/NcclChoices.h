// NcclChoices: the "collplan-nccl-tuner" file of (collective, size range) -> NCCL algorithm,
// protocol and channels rules that libnccl-tuner-collplan.so applies, and its reader.
#pragma once

#include "runtime/nccltuner/NcclTunerAbi.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collplan::nccltuner {

/// The format name and the one version this build reads.
inline constexpr std::string_view kChoicesFormat = "collplan-nccl-tuner";
inline constexpr int kChoicesVersion = 1;
/// The most channels a rule may ask for: NCCL's MAXCHANNELS (src/include/device.h).
inline constexpr int kMaxNcclChannels = 64;

/// The largest chunk a rule may set: NCCL clamps larger ones to its buffer's maximum anyway.
inline constexpr uint64_t kMaxNcclChunkBytes = uint64_t(1) << 30;

/// A rule without a protocol: NCCL's cheapest usable protocol for the rule's algorithm (the
/// algorithm measured, the protocol NCCL's own model picks within it).
inline constexpr int kCheapestProtocol = -1;

/// One rule: calls of `collective` with min_bytes <= nBytes < max_bytes, on communicators of
/// `ranks` ranks over `nodes` nodes (0: any), get (algorithm, protocol) and, when not 0,
/// `channels` channels and chunks of `chunkBytes` bytes.
struct NcclRule {
  ncclFunc_t collective = ncclFuncAllReduce;
  uint64_t minBytes = 0;
  uint64_t maxBytes = UINT64_MAX;  ///< exclusive; UINT64_MAX when the file gives none
  size_t ranks = 0;                ///< 0: any rank count
  size_t nodes = 0;                ///< 0: any node count
  int algorithm = NCCL_ALGO_RING;  ///< NCCL_ALGO_*: a row of the cost table
  int protocol = kCheapestProtocol;  ///< NCCL_PROTO_*: a column of the cost table
  int channels = 0;                ///< 0: NCCL chooses
  /// Bytes per chunk (getChunkSize) when NCCL runs the rule's algorithm and protocol; 0: NCCL's
  /// own chunk size.
  uint64_t chunkBytes = 0;
  size_t index = 0;                ///< position in the file's "rules", for messages

  bool appliesTo(size_t commRanks, size_t commNodes) const {
    return (ranks == 0 || ranks == commRanks) && (nodes == 0 || nodes == commNodes);
  }
  bool matches(ncclFunc_t func, uint64_t nBytes) const {
    return func == collective && minBytes <= nBytes && nBytes < maxBytes;
  }
};

/// A choices file's rules in file order; the first that matches a call wins.
struct NcclChoices {
  std::vector<NcclRule> rules;

  /// The rules that can apply to a communicator of `ranks` ranks over `nodes` nodes, in order.
  NcclChoices forCommunicator(size_t ranks, size_t nodes) const;
  /// The first rule for (func, nBytes), or nullptr. Ignores ranks and nodes: call it on
  /// forCommunicator's result.
  const NcclRule *match(ncclFunc_t func, uint64_t nBytes) const;
};

/// Reads and checks the choices file at `path`. Throws PlanError "<path>: <field>: <reason>"
/// for an unreadable file, bad JSON, a wrong format or version, a missing, unknown or
/// ill-typed field, an unknown name or an empty size range (e.g. `x.json: rules[2].protocol:
/// "fast" is not one of ll, ll128, simple`).
NcclChoices readNcclChoices(const std::string &path);
/// readNcclChoices on a document already in memory; `origin` names it in errors.
NcclChoices parseNcclChoices(std::string_view text, const std::string &origin);

/// The names a file uses, for messages and logs ("allreduce", "ring", "ll128").
std::string_view collectiveName(ncclFunc_t func);
std::string_view algorithmName(int algorithm);
std::string_view protocolName(int protocol);

}  // namespace collplan::nccltuner
