// DeviceImage: the ranks of one kernel launch lowered from their prepared programs, for one
// call's count, dtype and aliasing; and the numbering of a world's FIFOs.
#pragma once

#include "runtime/backends/cuda/DeviceProgram.h"
#include "runtime/exec/PreparedProgram.h"

#include <map>
#include <tuple>
#include <vector>

namespace collplan::cuda {

/// Numbers the FIFOs of a world, one per (sender, receiver, plan channel), for its whole life:
/// every plan that sends from p to q on channel c uses the same FIFO, whose counters carry on
/// from call to call.
class ConnectionTable {
public:
  struct Key {
    int sender = 0, receiver = 0;
    uint32_t channel = 0;
  };
  /// The FIFO's number, assigning the next one on first use.
  uint32_t id(int sender, int receiver, uint32_t channel);
  size_t size() const { return keys_.size(); }
  const Key &key(uint32_t id) const { return keys_[id]; }

private:
  std::map<std::tuple<int, int, uint32_t>, uint32_t> ids_;
  std::vector<Key> keys_;
};

/// What PreparedProgram needs of the cuda backend for one rank: connections are the world's
/// FIFO numbers; peers read every buffer in place where they share addresses (one device, or
/// devices with peer access), and only staging where they do not (processes with CUDA IPC).
class RankConnections final : public ConnectionSource {
public:
  RankConnections(ConnectionTable &table, int rank, int ranks, bool peersShareAddresses)
      : table_(table), rank_(rank), ranks_(ranks), shared_(peersShareAddresses) {}
  int ranks() const override { return ranks_; }
  bool peersCanRead(BufferKind) const override { return shared_; }
  Connection connect(int peer, uint32_t channel, bool sending) override {
    return sending ? table_.id(rank_, peer, channel) : table_.id(peer, rank_, channel);
  }

private:
  ConnectionTable &table_;
  int rank_, ranks_;
  bool shared_;
};

/// The host copy of what one launch runs: every channel of its ranks, in launch order.
struct DeviceImage {
  std::vector<DeviceChannel> channels;
  std::vector<DeviceOp> ops;
  std::vector<DeviceRef> refs;
  std::vector<uint32_t> connectionIds;
  std::vector<DeviceWait> waits;
  uint64_t largestOpBytes = 0;

  /// Appends the channels of `program` (the rank at `localRank` of the launch) resolved for one
  /// call (`res`): a fused recv-reduce chain becomes one op; a value that must be copied to be
  /// sent gets a staging target. Throws RuntimeError(Plan) for an op with more than
  /// kMaxOpPointers operands or targets.
  void appendRank(const PreparedProgram &program, const PreparedProgram::Resolved &res,
                  uint32_t localRank);

private:
  struct RankContext;
  /// The device op of plan op `i` of channel `c` (with the rest of its fused chain); returns
  /// the plan op after it. Sending connections join `drains`.
  uint32_t appendOp(const RankContext &rank, uint32_t c, uint32_t i,
                    std::vector<uint32_t> &drains);
  /// The srcs, with the received message at recv_pos, then the messages of the chain's others.
  void appendOperands(const RankContext &rank, uint32_t i, uint32_t last, DeviceOp &op);
  /// The last op's dsts, and the staging area where the value must be copied to be sent.
  void appendTargets(const RankContext &rank, uint32_t last, size_t staged, DeviceOp &op);
  /// The sending connections and the range peers read the value from (publish).
  void appendSends(const RankContext &rank, uint32_t last, size_t staged, DeviceOp &op,
                   std::vector<uint32_t> &drains);
  /// The other channels' ops the chain's ops wait for, as device-op counts of those channels.
  void appendWaits(const RankContext &rank, uint32_t i, uint32_t last, DeviceOp &op);
};

}  // namespace collplan::cuda
