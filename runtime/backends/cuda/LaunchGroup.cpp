// LaunchGroup: prepared programs and device images per plan and call shape, per-rank device
// buffers, and one kernel launch per call.
#include "runtime/backends/cuda/LaunchGroup.h"

#include "runtime/exec/EnvSettings.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <cstring>

namespace collplan::cuda {
namespace {

size_t alignUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// The bytes [offset, offset + sizeof(T) * n) of a host staging copy of the image.
template <typename T>
size_t place(std::vector<std::byte> &host, const std::vector<T> &items) {
  const size_t offset = alignUp(host.size(), 128);
  host.resize(offset + sizeof(T) * items.size());
  if (!items.empty()) std::memcpy(host.data() + offset, items.data(), sizeof(T) * items.size());
  return offset;
}

}  // namespace

FifoStore::~FifoStore() {
  for (DeviceFifo *chunk : chunks_) target_.release(chunk);
}

DeviceFifo *FifoStore::fifo(uint32_t id, const ConnectionTable::Key &) {
  while (chunks_.size() <= id / kChunk)
    chunks_.push_back(static_cast<DeviceFifo *>(target_.allocate(sizeof(DeviceFifo) * kChunk)));
  return chunks_[id / kChunk] + id % kChunk;
}

uint32_t blocksPerChannelFromEnv() {
  return uint32_t(unsignedFromEnv("COLLPLAN_CUDA_BLOCKS_PER_CHANNEL", 0,
                                  "a number of blocks from 1 to 32 (0: by op size)", 32));
}

uint32_t chooseBlocksPerChannel(uint32_t channels, uint64_t largestOpBytes,
                                uint32_t residentBlocks, uint32_t forced) {
  if (channels == 0) return 1;
  const uint32_t fit = residentBlocks / channels;
  if (forced) return forced <= fit ? forced : 0;
  const uint64_t wanted = std::clamp<uint64_t>((largestOpBytes + 65535) / 65536, 1, 32);
  return std::min<uint32_t>(uint32_t(wanted), fit);
}

struct LaunchGroup::Image {
  void *memory = nullptr;
  LaunchArgs args;
  std::vector<size_t> tmpBytes, stagingBytes;  ///< per local rank
};

struct LaunchGroup::PlanState {
  std::vector<std::unique_ptr<RankConnections>> connections;
  std::vector<std::unique_ptr<PreparedProgram>> programs;  ///< per local rank
  std::map<std::string, std::unique_ptr<Image>> images;    ///< by call shape
};

LaunchGroup::LaunchGroup(DeviceTarget &target, FifoPlacement &fifos, ConnectionTable &table,
                         std::vector<int> ranks, int worldRanks, uint64_t timeoutNs,
                         MappedStaging mapped)
    : target_(target), fifos_(fifos), table_(table), ranks_(std::move(ranks)),
      worldRanks_(worldRanks), mapped_(std::move(mapped)), shareAddresses_(!mapped_.base),
      timeoutNs_(timeoutNs), forcedBlocks_(blocksPerChannelFromEnv()) {
  if (mapped_.base && (ranks_.size() != 1 || mapped_.ofRank.size() != size_t(worldRanks_)))
    throw RuntimeError(ErrorCode::Internal,
                       "mapped staging is for one rank with the arenas of every world rank");
  if (ranks_.empty() || ranks_.size() > size_t(kMaxLaunchRanks))
    throw RuntimeError(ErrorCode::InvalidArgument,
                       target_.describe() + ": " + std::to_string(ranks_.size()) +
                           " ranks on one device; the cuda backend runs 1 to " +
                           std::to_string(kMaxLaunchRanks));
  flags_ = static_cast<unsigned int *>(target_.allocate(128));
  tmp_.resize(ranks_.size());
  staging_.resize(ranks_.size());
  stagedInput_.resize(ranks_.size());
}

LaunchGroup::~LaunchGroup() {
  for (auto &[plan, state] : plans_)
    for (auto &[key, image] : state->images) target_.release(image->memory);
  for (auto *arenas : {&tmp_, &staging_, &stagedInput_})
    for (auto &[p, bytes] : *arenas)
      if (p) target_.release(p);
  for (void *p : retired_) target_.release(p);
  target_.release(flags_);
}

LaunchGroup::PlanState &LaunchGroup::stateFor(const Plan &plan) {
  std::unique_ptr<PlanState> &state = plans_[&plan];
  if (state) return *state;
  auto fresh = std::make_unique<PlanState>();
  for (int rank : ranks_) {
    fresh->connections.push_back(
        std::make_unique<RankConnections>(table_, rank, worldRanks_, shareAddresses_));
    fresh->programs.push_back(
        std::make_unique<PreparedProgram>(plan, rank, *fresh->connections.back()));
  }
  state = std::move(fresh);
  return *state;
}

LaunchGroup::Image &LaunchGroup::imageFor(PlanState &state, const std::vector<CallBuffers> &calls,
                                          const std::vector<AliasMode> &modes) {
  const CallBuffers &first = calls.front();
  std::string key = std::to_string(first.count) + "/" + std::to_string(int(first.dtype)) + "/";
  for (AliasMode mode : modes) key += char('0' + int(mode));
  if (auto found = state.images.find(key); found != state.images.end()) return *found->second;

  DeviceImage host;
  auto fresh = std::make_unique<Image>();
  for (size_t r = 0; r < ranks_.size(); ++r) {
    const PreparedProgram::Resolved &res =
        state.programs[r]->resolve(first.count, first.dtype, modes[r]);
    host.appendRank(*state.programs[r], res, uint32_t(r));
    fresh->tmpBytes.push_back(res.tmpBytes);
    fresh->stagingBytes.push_back(res.stagingBytes);
  }
  const uint32_t channels = uint32_t(host.channels.size());
  const uint32_t blocks =
      chooseBlocksPerChannel(channels, host.largestOpBytes, target_.residentBlocks(), forcedBlocks_);
  if (blocks == 0)
    throw RuntimeError(ErrorCode::Plan,
                       "plan \"" + state.programs[0]->plan().algorithm + "\" needs " +
                           std::to_string(channels * std::max<uint32_t>(forcedBlocks_, 1)) +
                           " blocks resident at once on " + target_.describe() + " (" +
                           std::to_string(ranks_.size()) + " ranks' channels), which holds " +
                           std::to_string(target_.residentBlocks()) +
                           ": use fewer ranks per device or a plan with fewer channels");

  const std::vector<ConnectionView> views = connectionViews(host);
  if (mapped_.base)
    for (size_t r = 0; r < ranks_.size(); ++r)
      if (fresh->stagingBytes[r] > mapped_.bytes)
        throw RuntimeError(ErrorCode::Plan,
                           "plan \"" + state.programs[0]->plan().algorithm + "\" stages " +
                               std::to_string(fresh->stagingBytes[r]) + " bytes on rank " +
                               std::to_string(ranks_[r]) + " at this size; its arena holds " +
                               std::to_string(mapped_.bytes) +
                               " (COLLPLAN_CUDA_IPC_STAGING_BYTES)");
  upload(host, views, blocks, *fresh);
  return *(state.images[key] = std::move(fresh));
}

std::vector<ConnectionView> LaunchGroup::connectionViews(const DeviceImage &host) {
  std::vector<ConnectionView> views;
  for (uint32_t id : host.connectionIds) {
    if (views.size() <= id) views.resize(id + 1);
    const ConnectionTable::Key &key = table_.key(id);
    ConnectionView &view = views[id];
    view.fifo = fifos_.fifo(id, key);
    if (mapped_.base) {  // slots hold offsets into the sender's arena
      view.senderOrigin = uint64_t(uintptr_t(mapped_.ofRank[size_t(key.sender)]));
      view.receiverOrigin = view.senderOrigin;
    }
  }
  return views;
}

void LaunchGroup::upload(const DeviceImage &host, const std::vector<ConnectionView> &views,
                         uint32_t blocks, Image &image) {
  const uint32_t channels = uint32_t(host.channels.size());
  std::vector<std::byte> bytes;
  const size_t channelsAt = place(bytes, host.channels), opsAt = place(bytes, host.ops),
               refsAt = place(bytes, host.refs), idsAt = place(bytes, host.connectionIds),
               waitsAt = place(bytes, host.waits), viewsAt = place(bytes, views);
  const size_t countersAt = alignUp(bytes.size(), 128);
  const size_t finishedAt = countersAt + sizeof(ChannelCounters) * std::max<uint32_t>(channels, 1);
  image.memory = target_.allocate(finishedAt + 128);
  try {
    target_.upload(image.memory, bytes.data(), bytes.size());
  } catch (...) {
    target_.release(image.memory);
    image.memory = nullptr;
    throw;
  }

  char *base = static_cast<char *>(image.memory);
  LaunchArgs &a = image.args;
  a.channels = reinterpret_cast<const DeviceChannel *>(base + channelsAt);
  a.ops = reinterpret_cast<const DeviceOp *>(base + opsAt);
  a.refs = reinterpret_cast<const DeviceRef *>(base + refsAt);
  a.connectionIds = reinterpret_cast<const uint32_t *>(base + idsAt);
  a.waits = reinterpret_cast<const DeviceWait *>(base + waitsAt);
  a.connections = reinterpret_cast<const ConnectionView *>(base + viewsAt);
  a.counters = reinterpret_cast<ChannelCounters *>(base + countersAt);
  a.finishedBlocks = reinterpret_cast<unsigned int *>(base + finishedAt);
  a.error = &target_.errorRecord();
  a.abort = flags_;
  a.timeoutNs = timeoutNs_;
  a.numChannels = channels;
  a.blocksPerChannel = blocks;
  a.systemScope = ranks_.size() == size_t(worldRanks_) && !mapped_.base ? 0 : 1;
  for (size_t r = 0; r < ranks_.size(); ++r) a.planRank[r] = ranks_[r];
}

char *LaunchGroup::reserve(std::vector<std::pair<void *, size_t>> &arenas, size_t rank,
                           size_t bytes) {
  auto &[p, capacity] = arenas[rank];
  if (bytes <= capacity && p) return static_cast<char *>(p);
  // A CUDA graph captured earlier replays with the old buffer's address: once a launch was
  // captured, keep outgrown buffers until the group ends (growing by half bounds what is kept to
  // twice the newest). Otherwise free them now: release waits for the launches that use them.
  if (p && captured_) retired_.push_back(p);
  else if (p) target_.release(p);
  const size_t grown = alignUp(std::max({bytes, capacity + capacity / 2, size_t(256)}), 4096);
  p = nullptr;  // gone: if the allocation below throws, the destructor must not free it again
  capacity = 0;
  p = target_.allocate(grown);
  capacity = grown;
  return static_cast<char *>(p);
}

void LaunchGroup::checkFailure() {
  if (broken_.empty()) {
    const DeviceError &e = target_.errorRecord();
    if (DeviceFailure(e.failure) == DeviceFailure::None) return;
    std::string what = "rank " + std::to_string(e.rank) + " channels[" + std::to_string(e.channel) +
                       "] op " + std::to_string(e.op) + ": ";
    auto peer = [&](bool sending) {
      const ConnectionTable::Key &k = table_.key(e.connection);
      return "rank " + std::to_string(sending ? k.receiver : k.sender) + " (channel " +
             std::to_string(k.channel) + ")";
    };
    if (DeviceFailure(e.failure) == DeviceFailure::SizeMismatch) {
      what += "a message of " + std::to_string(e.bytes) + " bytes from " + peer(false) +
              " where the plan expects another size: the ranks' calls differ";
    } else {
      const std::string waited = e.waitingFor == 0 ? "channels[" + std::to_string(e.connection) + "]"
                                 : e.waitingFor == 1 ? "a message from " + peer(false)
                                                     : "room to send to " + peer(true);
      what += "made no progress for " + std::to_string(double(timeoutNs_) / 1e9) +
              " s waiting for " + waited +
              ": a rank did not make the same collective call, or a launch of another device "
              "did not run";
    }
    broken_ = target_.describe() + ": " + what;
  }
  throw RuntimeError(DeviceFailure(target_.errorRecord().failure) == DeviceFailure::Timeout
                         ? ErrorCode::Timeout
                         : ErrorCode::InvalidArgument,
                     broken_);
}

void LaunchGroup::enqueue(const Plan &plan, const std::vector<CallBuffers> &calls,
                          StreamHandle stream) {
  checkFailure();
  if (calls.size() != ranks_.size())
    throw RuntimeError(ErrorCode::Internal, "a launch of " + std::to_string(ranks_.size()) +
                                                " ranks got " + std::to_string(calls.size()) +
                                                " calls");
  PlanState &state = stateFor(plan);
  // How each rank's input relates to its output (Executor::run decides the same way).
  std::vector<AliasMode> modes(ranks_.size(), AliasMode::Separate);
  std::vector<const char *> inputs(ranks_.size());
  for (size_t r = 0; r < ranks_.size(); ++r) {
    const CallBuffers &call = calls[r];
    const char *in = static_cast<const char *>(call.in);
    const char *out = static_cast<const char *>(call.out);
    inputs[r] = in;
    if (!(call.inBytes && call.outBytes && in < out + call.outBytes && out < in + call.inBytes))
      continue;
    const int64_t canonical =
        state.programs[r]->inPlaceBlockShift() * int64_t(call.count * dtypeSize(call.dtype));
    if (plan.inplaceSafe && in - out == canonical) {
      modes[r] = AliasMode::InPlace;
    } else {
      char *copy = reserve(stagedInput_, r, call.inBytes);
      target_.copyAsync(copy, in, call.inBytes, stream);
      inputs[r] = copy;
    }
  }
  Image &image = imageFor(state, calls, modes);
  LaunchArgs args = image.args;
  args.op = uint32_t(calls.front().op);
  args.dtype = uint32_t(calls.front().dtype);
  for (size_t r = 0; r < ranks_.size(); ++r) {
    args.bases[r][0] = const_cast<char *>(inputs[r]);
    args.bases[r][1] = static_cast<char *>(calls[r].out);
    args.bases[r][2] = reserve(tmp_, r, image.tmpBytes[r]);
    args.bases[r][3] =
        mapped_.base ? mapped_.base : reserve(staging_, r, image.stagingBytes[r]);
  }
  lastBlocksPerChannel_ = args.blocksPerChannel;
  if (args.numChannels && target_.launch(args, args.numChannels * args.blocksPerChannel, stream))
    captured_ = true;
}

}  // namespace collplan::cuda
