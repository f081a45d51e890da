// LaunchGroup: the ranks of a world that share one device, run by one kernel launch per call;
// where the world's FIFOs live (FifoPlacement).
#pragma once

#include "runtime/backends/cuda/DeviceImage.h"
#include "runtime/backends/cuda/DeviceTarget.h"
#include "runtime/exec/Executor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace collplan::cuda {

/// Where each FIFO of a world lives, in this process's addresses. A FIFO never moves: its
/// counters carry on over every call.
class FifoPlacement {
public:
  virtual ~FifoPlacement() = default;
  /// The FIFO of connection `id` (`key` says whose): zero-filled on first use. Throws
  /// RuntimeError(Plan) for a connection the placement has no room for.
  virtual DeviceFifo *fifo(uint32_t id, const ConnectionTable::Key &key) = 0;
};

/// The FIFOs of a world held by one process, numbered by its ConnectionTable, allocated in
/// chunks on one device.
class FifoStore final : public FifoPlacement {
public:
  explicit FifoStore(DeviceTarget &target) : target_(target) {}
  ~FifoStore() override;
  FifoStore(const FifoStore &) = delete;
  FifoStore &operator=(const FifoStore &) = delete;
  DeviceFifo *fifo(uint32_t id, const ConnectionTable::Key &key) override;

private:
  static constexpr uint32_t kChunk = 256;
  DeviceTarget &target_;
  std::vector<DeviceFifo *> chunks_;
};

/// COLLPLAN_CUDA_BLOCKS_PER_CHANNEL when set (1..32), else 0: the backend picks per call.
uint32_t blocksPerChannelFromEnv();

/// The blocks of each channel for a launch of `channels` channels whose largest op moves
/// `largestOpBytes`: enough to spread that op over about 64 KiB per block, within what the
/// device holds at once (`residentBlocks`), at most 32; `forced` (from the environment) wins
/// when non-zero. 0 when even one block per channel does not fit.
uint32_t chooseBlocksPerChannel(uint32_t channels, uint64_t largestOpBytes,
                                uint32_t residentBlocks, uint32_t forced);

/// The staging of a rank whose peers are other processes: a fixed arena they map, since the
/// values it sends are read there (peers read nothing else of it).
struct MappedStaging {
  char *base = nullptr;  ///< this rank's arena
  size_t bytes = 0;
  /// Per world rank: where that rank's arena is mapped in this process.
  std::vector<char *> ofRank;
};

class LaunchGroup {
public:
  /// `ranks`: the plan ranks this device runs (at most kMaxLaunchRanks); `worldRanks`: the
  /// world's. Without `mapped`, peers share addresses and read every buffer in place; with it
  /// (one rank, peers in other processes), everything sent is staged in its arena, and slots
  /// hold offsets from the sender's arena.
  LaunchGroup(DeviceTarget &target, FifoPlacement &fifos, ConnectionTable &table,
              std::vector<int> ranks, int worldRanks, uint64_t timeoutNs,
              MappedStaging mapped = {});
  ~LaunchGroup();
  LaunchGroup(const LaunchGroup &) = delete;
  LaunchGroup &operator=(const LaunchGroup &) = delete;

  const std::vector<int> &ranks() const { return ranks_; }
  DeviceTarget &target() { return target_; }

  /// Enqueues one call of every rank of the group on `stream`: `calls[i]` is rank ranks()[i]'s
  /// (device pointers, validated by the caller), all for the same count, dtype and op. Never
  /// waits for the device. Throws RuntimeError(Plan) for a plan the device cannot run (too many
  /// blocks to be resident at once, an op with too many operands), and the failure a previous
  /// launch recorded (then the world is broken: every later call fails with it).
  void enqueue(const Plan &plan, const std::vector<CallBuffers> &calls, StreamHandle stream);
  /// Throws the failure a launch recorded, if any (reads host-visible memory; no wait).
  void checkFailure();
  /// The blocks per channel the last enqueue launched with.
  uint32_t lastBlocksPerChannel() const { return lastBlocksPerChannel_; }

private:
  struct Image;
  struct PlanState;
  PlanState &stateFor(const Plan &plan);
  Image &imageFor(PlanState &state, const std::vector<CallBuffers> &calls,
                  const std::vector<AliasMode> &modes);
  /// Per connection id of `host`, where its FIFO is and how its slots' offsets resolve.
  std::vector<ConnectionView> connectionViews(const DeviceImage &host);
  /// Copies `host` and `views` to one device allocation and points `image.args` into it.
  void upload(const DeviceImage &host, const std::vector<ConnectionView> &views, uint32_t blocks,
              Image &image);
  /// Grows a per-rank device buffer (tmp, staging, staged input) to at least `bytes`; the
  /// buffer it replaces is retired, not freed, once a launch was captured (a graph may name it).
  char *reserve(std::vector<std::pair<void *, size_t>> &arenas, size_t rank, size_t bytes);

  DeviceTarget &target_;
  FifoPlacement &fifos_;
  ConnectionTable &table_;
  std::vector<int> ranks_;
  int worldRanks_;
  MappedStaging mapped_;
  bool shareAddresses_;
  uint64_t timeoutNs_;
  uint32_t forcedBlocks_;
  unsigned int *flags_ = nullptr;  ///< device words: [0] the abort flag
  std::unordered_map<const Plan *, std::unique_ptr<PlanState>> plans_;
  std::vector<std::pair<void *, size_t>> tmp_, staging_, stagedInput_;  ///< per local rank
  std::vector<void *> retired_;  ///< outgrown buffers a captured graph may name, freed with the group
  bool captured_ = false;        ///< a launch of the group was captured into a CUDA graph
  uint32_t lastBlocksPerChannel_ = 0;
  std::string broken_;  ///< the recorded failure, once seen
};

}  // namespace collplan::cuda
