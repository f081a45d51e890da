// The flat form of rank programs that the cuda backend's kernels run: plain structs read by the
// device (and by the host-side emulation of the kernel), built on the host by DeviceImage.
#pragma once

#include "runtime/core/ReduceOps.h"
#include "runtime/plan/Plan.h"

#include <cstdint>

namespace collplan::cuda {

/// Ranks one kernel launch may run (the ranks sharing one device); their buffer bases travel in
/// the launch arguments, so a captured CUDA graph replays with them.
inline constexpr int kMaxLaunchRanks = 16;
/// Operands or targets one op may have (srcs, the received message, a fused chain's messages;
/// dsts and staging): the leader thread resolves them into shared memory.
inline constexpr int kMaxOpPointers = 64;

/// Where a DeviceRef points.
enum class Space : uint32_t {
  In = 0, Out = 1, Tmp = 2,  ///< the rank's buffers (BufferKind order)
  Staging = 3,               ///< the rank's staging: values sent that do not stay put
  Message = 4,               ///< the message at the head of receiving connection `connection`
};

struct DeviceRef {
  Space space = Space::In;
  uint32_t connection = 0;  ///< Message: index into LaunchArgs::connections
  uint64_t offset = 0;      ///< bytes into the rank's buffer (not Message)
};

/// One step of a channel: gather operands, fold them left to right into every target, post the
/// value to every sending connection, consume every receiving one. A fused recv-reduce chain of
/// the plan is one DeviceOp with one operand per message.
struct DeviceOp {
  uint64_t bytes = 0;
  uint32_t operandBegin = 0, numOperands = 0;  ///< into refs
  uint32_t targetBegin = 0, numTargets = 0;    ///< into refs
  uint32_t recvBegin = 0, numRecvs = 0;        ///< into connectionIds: messages consumed
  uint32_t sendBegin = 0, numSends = 0;        ///< into connectionIds: messages posted
  uint32_t waitBegin = 0, numWaits = 0;        ///< into waits: other channels' progress
  /// refs index of what is posted (a target, the only operand, or staging); UINT32_MAX when the
  /// op posts nothing or its value is empty.
  uint32_t publish = UINT32_MAX;
  uint32_t padding = 0;
};

/// "Channel `channel` of this launch has finished `ops` ops": an `after` reference of the plan.
struct DeviceWait {
  uint32_t channel = 0;
  uint32_t ops = 0;
};

/// One channel of one rank in a launch: ops [opBegin, opEnd), run by blocksPerChannel blocks.
struct DeviceChannel {
  uint32_t rank = 0;  ///< index into LaunchArgs::bases (the launch's local ranks)
  uint32_t planChannel = 0;
  uint32_t opBegin = 0, opEnd = 0;
  /// Sending connections whose messages must all be consumed before the channel ends, so the
  /// caller's buffers are free once the stream passes the kernel.
  uint32_t drainBegin = 0, numDrains = 0;  ///< into connectionIds
};

/// One posted message.
struct DeviceSlot {
  uint64_t where = 0;  ///< the data's address, minus the connection's sender origin
  uint64_t bytes = 0;
};

/// The FIFO of messages from one rank to another on one channel. Counters only grow, over every
/// call of the world: the sender fills slots[posted % kChannelDepth] and stores posted + 1
/// (release); the receiver waits for it (acquire), reads the data and stores consumed + 1.
/// Separate 128-byte lines: different devices write them.
struct alignas(128) DeviceFifo {
  unsigned long long posted;
  char padPosted[120];
  unsigned long long consumed;
  char padConsumed[120];
  DeviceSlot slots[kChannelDepth];
};

/// How a launch reaches one connection: its FIFO, and the origins that turn a slot's `where`
/// into an address (0 where peers share addresses; the staging bases where they do not).
struct ConnectionView {
  DeviceFifo *fifo = nullptr;
  uint64_t senderOrigin = 0;    ///< subtracted by the sender
  uint64_t receiverOrigin = 0;  ///< added by the receiver
};

/// Per launch channel: reset to zero by the launch's last block, so every call starts from 0.
struct alignas(128) ChannelCounters {
  unsigned long long opsDone;  ///< ops the channel has finished in this call
  char pad[56];
  unsigned long long arrivals;  ///< blocks of the channel that finished their part of an op
};

/// What a kernel reports when it gives up (written once, by the first block that fails).
enum class DeviceFailure : uint32_t { None = 0, Timeout = 1, SizeMismatch = 2 };
struct DeviceError {
  uint32_t failure = 0;  ///< DeviceFailure
  int32_t rank = -1;     ///< the plan rank that failed
  uint32_t channel = 0;  ///< its plan channel
  uint32_t op = 0;       ///< index of the DeviceOp within the channel
  /// What it waited for: 0 a channel of its rank (`connection` is that plan channel), 1 a
  /// message, 2 room to send (`connection` is the connection).
  uint32_t waitingFor = 0;
  uint32_t connection = 0;
  uint64_t bytes = 0;  ///< SizeMismatch: the size the peer sent
};

/// Everything one kernel launch reads: the image (device memory, built once per plan and call
/// shape), the world's FIFOs and counters, and this call's buffers.
struct LaunchArgs {
  const DeviceChannel *channels = nullptr;
  const DeviceOp *ops = nullptr;
  const DeviceRef *refs = nullptr;
  const uint32_t *connectionIds = nullptr;
  const DeviceWait *waits = nullptr;
  const ConnectionView *connections = nullptr;
  ChannelCounters *counters = nullptr;  ///< one per channel of the launch
  unsigned int *finishedBlocks = nullptr;
  DeviceError *error = nullptr;  ///< host-mapped
  unsigned int *abort = nullptr;  ///< set when any block gave up: the others stop waiting
  uint64_t timeoutNs = 0;
  uint32_t numChannels = 0;
  uint32_t blocksPerChannel = 1;
  uint32_t dtype = 0;  ///< DType
  uint32_t op = 0;     ///< ReduceOp
  /// 1 when a peer of this launch runs elsewhere (another device or process): the FIFO and
  /// counter atomics then need system scope. 0 when every rank of the world is in this launch:
  /// device scope orders them, and each fence costs a fraction of a system-scope one.
  uint32_t systemScope = 1;
  int32_t planRank[kMaxLaunchRanks] = {};
  char *bases[kMaxLaunchRanks][4] = {};  ///< per local rank, by Space (In, Out, Tmp, Staging)
};

}  // namespace collplan::cuda
