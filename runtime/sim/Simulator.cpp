// The simulator's event loop: every rank runs its ops in order; each op is an activity whose
// rate the FairShare solver sets from the links, memories and reduction units it shares.
#include "runtime/sim/Simulator.h"

#include "runtime/plan/Composition.h"

#include "runtime/sim/EventQueue.h"
#include "runtime/sim/FairShare.h"
#include "runtime/sim/SimModel.h"
#include "runtime/sim/SimReport.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace collplan {
namespace {

class Engine {
public:
  Engine(const Plan &plan, const SimModel &model, const SimOptions &options, SimResult &result)
      : plan_(plan), model_(model), options_(options), result_(result),
        solver_(model.capacities, options.contention), rankBusy_(plan.ranks, 0),
        deviceBusy_(model.engines.size(), 0), fifoInFlight_(model.fifos, 0),
        done_(model.slots, 0),
        timing_(model.slots, OpTiming{0, 0, std::numeric_limits<double>::quiet_NaN()}) {
    for (int r = 0; r < plan.ranks; ++r) {
      channelBase_.push_back(uint32_t(next_.size()));
      const std::vector<uint32_t> &begin = model.channelBegin[size_t(r)];
      for (size_t c = 0; c + 1 < begin.size(); ++c) next_.push_back(begin[c]);
    }
    channelBase_.push_back(uint32_t(next_.size()));
    busy_.assign(next_.size(), 0);
    ranksOfDevice_.resize(model.engines.size());
    for (int r = 0; r < plan.ranks; ++r) ranksOfDevice_[size_t(model.deviceOfRank[r])].push_back(r);
  }

  void run();
  /// When the last release of a handshake reached its sender (0 without the handshake).
  double lastReleaseUs() const { return lastReleaseUs_; }

private:
  void schedule(double time, EventKind kind, uint32_t a, uint32_t b);
  void dispatch(const Event &event);
  void drainNow();
  /// Starts every op of `rank` that can start now, channel by channel.
  void tryStartRank(int rank);
  /// Whether op `local` of `rank` (slot `globalOp`) can start: its `after` ops done, its
  /// message (and, on a fused chain's head, every message of the chain) in, room to send.
  bool canStart(int rank, uint32_t local, uint32_t globalOp) const;
  void start(int rank, uint32_t channelId, uint32_t globalOp);
  void startData(int rank, uint32_t globalOp);
  void bandwidthDone(int rank, uint32_t globalOp, double time);
  void deliver(uint32_t receiverOp, int receiver);
  void opDone(uint32_t globalOp, int rank);
  void collectUses(int rank, uint32_t globalOp, const SimOp &op, double bytes, double &cap);
  [[noreturn]] void throwDeadlock() const;

  const Plan &plan_;
  const SimModel &model_;
  SimOptions options_;
  SimResult &result_;
  FairShare solver_;
  EventQueue queue_;
  std::vector<Event> batch_;  ///< the events of the current time, taken from the queue
  std::vector<Event> now_;    ///< events scheduled for the current time while handling it
  double time_ = 0;
  std::vector<uint32_t> channelBase_;  ///< per rank: the id of its channel 0
  std::vector<uint32_t> next_;  ///< per channel id: rank-local index of its current or next op
  std::vector<uint8_t> busy_;   ///< per channel id: its current op has started and not ended
  std::vector<uint32_t> rankBusy_, deviceBusy_;  ///< ops moving data (engines in use)
  std::vector<std::vector<int>> ranksOfDevice_;
  std::vector<uint32_t> fifoInFlight_;  ///< per FIFO: messages sent and not yet consumed
  std::vector<uint8_t> done_;           ///< per slot: the op ended
  std::vector<OpTiming> timing_;  ///< per slot; copied into result_.timelines at the end
  std::vector<ResourceUse> uses_;
  std::vector<Hop> seenHops_;
  /// Under the handshake: when the last release reached its sender (a call ends no earlier).
  double lastReleaseUs_ = 0;
};

void Engine::schedule(double time, EventKind kind, uint32_t a, uint32_t b) {
  if (time == time_)
    now_.push_back({kind, a, b});
  else
    queue_.push(time, {kind, a, b});
}

void Engine::run() {
  for (int r = 0; r < plan_.ranks; ++r) tryStartRank(r);
  for (;;) {
    drainNow();
    for (int flow : solver_.update(time_))
      queue_.push(solver_.finishTime(flow),
                  {EventKind::FlowDone, uint32_t(flow), solver_.version(flow)});
    if (queue_.empty()) break;
    time_ = queue_.nextTime();
    queue_.popEarliest(batch_);
    for (const Event &event : batch_) dispatch(event);
  }
  for (uint32_t ch = 0; ch < next_.size(); ++ch) {
    const int rank = int(std::upper_bound(channelBase_.begin(), channelBase_.end(), ch) -
                         channelBase_.begin()) - 1;
    if (next_[ch] < model_.channelBegin[size_t(rank)][ch - channelBase_[size_t(rank)] + 1])
      throwDeadlock();
  }
  result_.rateUpdates = solver_.recomputations();
  for (int r = 0; r < plan_.ranks; ++r) {
    auto &timeline = result_.timelines[r];
    timeline.resize(model_.opCount[r]);
    for (uint32_t i = 0; i < model_.opCount[r]; ++i) timeline[i] = timing_[model_.slot(r, i)];
  }
}

void Engine::drainNow() {
  for (size_t k = 0; k < now_.size(); ++k) {
    Event event = now_[k];  // copy: dispatch may grow now_
    dispatch(event);
  }
  now_.clear();
}

void Engine::dispatch(const Event &event) {
  switch (event.kind) {
  case EventKind::FlowDone: {
    int flow = int(event.a);
    if (solver_.version(flow) != event.b) return;  // its rate changed since: a later event holds
    uint64_t tag = solver_.tag(flow);
    solver_.remove(flow);
    bandwidthDone(int(tag >> 32), uint32_t(tag), time_);
    return;
  }
  case EventKind::OpEnd:
    for (uint32_t s = model_.sendBase[event.a]; s < model_.sendBase[event.a + 1]; ++s)
      deliver(model_.sends[s].receiverOp, model_.sends[s].receiverRank);
    opDone(event.a, int(event.b));
    return;
  case EventKind::Arrival:
    deliver(event.a, int(event.b));
    return;
  case EventKind::OpDone:
    opDone(event.a, int(event.b));
    return;
  case EventKind::OverheadDone:
    startData(int(event.b), event.a);
    return;
  }
}

void Engine::deliver(uint32_t receiverOp, int receiver) {
  timing_[receiverOp].dataReadyUs = time_;
  tryStartRank(receiver);
}

/// The op is over: its channel moves on, its engine is free, its message is consumed (room for
/// the sender), and ops waiting for it may start.
void Engine::opDone(uint32_t globalOp, int rank) {
  const SimOp &op = model_.ops[globalOp];
  timing_[globalOp].endUs = time_;
  done_[globalOp] = 1;
  if (model_.handshake && op.pulledRecv)  // the release flag goes back
    lastReleaseUs_ = std::max(lastReleaseUs_, time_ + model_.intraLatencyUs);
  const uint32_t ch = channelBase_[size_t(rank)] + op.channel;
  ++next_[ch];
  busy_[ch] = 0;
  const int device = model_.deviceOfRank[rank];
  --rankBusy_[size_t(rank)];
  --deviceBusy_[size_t(device)];
  if (op.hasRecv) {
    --fifoInFlight_[op.recvFifo];
    const uint32_t sender = model_.senderOp[globalOp];
    if (sender != kNoOp) tryStartRank(model_.locate(sender).first);
  }
  tryStartRank(rank);
  if (model_.engines[size_t(device)] > 0)
    for (int other : ranksOfDevice_[size_t(device)]) tryStartRank(other);
}

bool Engine::canStart(int rank, uint32_t local, uint32_t globalOp) const {
  const SimOp &op = model_.ops[globalOp];
  for (uint32_t k = model_.afterBase[globalOp]; k < model_.afterBase[globalOp + 1]; ++k)
    if (!done_[model_.afterSlots[k]]) return false;
  if (op.hasRecv && std::isnan(timing_[globalOp].dataReadyUs)) return false;  // waits for data
  for (uint32_t j = 1; j <= op.chainLinks; ++j)
    if (std::isnan(timing_[model_.slot(rank, local + j)].dataReadyUs)) return false;
  const uint32_t first = model_.sendBase[globalOp], end = model_.sendBase[globalOp + 1];
  for (uint32_t s = first; s < end; ++s) {
    uint32_t mine = 0;  // sends of this op on the same FIFO
    for (uint32_t t = first; t < end; ++t) mine += model_.sends[t].fifo == model_.sends[s].fifo;
    if (fifoInFlight_[model_.sends[s].fifo] + mine > kChannelDepth) return false;
  }
  return true;
}

void Engine::tryStartRank(int rank) {
  const int device = model_.deviceOfRank[rank];
  const uint32_t perRank = model_.enginesPerRank[size_t(device)];
  const uint32_t perDevice = model_.engines[size_t(device)];
  const std::vector<uint32_t> &begin = model_.channelBegin[size_t(rank)];
  for (uint32_t c = 0; c + 1 < begin.size(); ++c) {
    if (perRank > 0 && rankBusy_[size_t(rank)] >= perRank) return;
    if (perDevice > 0 && deviceBusy_[size_t(device)] >= perDevice) return;
    const uint32_t ch = channelBase_[size_t(rank)] + c;
    if (busy_[ch] || next_[ch] >= begin[c + 1]) continue;
    const uint32_t globalOp = model_.slot(rank, next_[ch]);
    if (canStart(rank, next_[ch], globalOp)) start(rank, ch, globalOp);
  }
}

void Engine::start(int rank, uint32_t channelId, uint32_t globalOp) {
  busy_[channelId] = 1;
  ++rankBusy_[size_t(rank)];
  ++deviceBusy_[size_t(model_.deviceOfRank[rank])];
  for (uint32_t s = model_.sendBase[globalOp]; s < model_.sendBase[globalOp + 1]; ++s)
    ++fifoInFlight_[model_.sends[s].fifo];
  timing_[globalOp].startUs = time_;
  const double overhead =
      model_.ops[globalOp].chainLink ? 0.0 : model_.opOverheadUs[model_.deviceOfRank[rank]];
  if (overhead > 0)
    schedule(time_ + overhead, EventKind::OverheadDone, globalOp, uint32_t(rank));
  else
    startData(rank, globalOp);
}

/// The op's data phase: it streams its bytes at the rate its resources allow.
void Engine::startData(int rank, uint32_t globalOp) {
  const SimOp &op = model_.ops[globalOp];
  if (op.chainLink) {  // its chain's head did its work
    bandwidthDone(rank, globalOp, time_);
    return;
  }
  double bytes = double(op.units) * model_.unitBytes;
  double cap = std::numeric_limits<double>::infinity();
  uses_.clear();
  collectUses(rank, globalOp, op, bytes, cap);
  if (op.chainLinks > 0) {  // one pass over the whole chain: its links' uses join the head's
    const uint32_t local = model_.locate(globalOp).second;
    for (uint32_t j = 1; j <= op.chainLinks; ++j) {
      const uint32_t link = model_.slot(rank, local + j);
      collectUses(rank, link, model_.ops[link], bytes, cap);
    }
  }
  if (bytes <= 0 || (uses_.empty() && std::isinf(cap))) {
    bandwidthDone(rank, globalOp, time_);  // nothing limits it: no time beyond latency
    return;
  }
  if (!options_.contention) {  // alone on its resources: its rate never changes
    bandwidthDone(rank, globalOp, time_ + bytes / solver_.aloneRate(uses_, cap));
    return;
  }
  solver_.add(time_, bytes, uses_, cap, (uint64_t(rank) << 32) | globalOp);
}

/// The op moves its last byte at `time`: each send's data arrives after its route's latency,
/// and the op ends (its engine is free) once the last of them has arrived (α is paid by the
/// sender, as in α-β). When every send has the same latency (the usual case) one OpEnd event
/// does it all.
void Engine::bandwidthDone(int rank, uint32_t globalOp, double time) {
  uint32_t first = model_.sendBase[globalOp], end = model_.sendBase[globalOp + 1];
  auto latency = [&](uint32_t s) { return model_.routes[model_.sends[s].route].latencyUs; };
  // Under the handshake a pulled send is published and the sender goes on: only its data waits.
  auto published = [&](uint32_t s) {
    return model_.handshake && model_.routes[model_.sends[s].route].intraDevice >= 0;
  };
  double common = first < end ? latency(first) : 0;
  bool uniform = !model_.handshake;
  for (uint32_t s = first + 1; s < end && uniform; ++s) uniform = latency(s) == common;
  if (uniform) {
    schedule(time + common, EventKind::OpEnd, globalOp, uint32_t(rank));
    return;
  }
  double maxLatency = 0;
  for (uint32_t s = first; s < end; ++s) {
    const SimSend &send = model_.sends[s];
    if (!published(s)) maxLatency = std::max(maxLatency, latency(s));
    schedule(time + latency(s), EventKind::Arrival, send.receiverOp, uint32_t(send.receiverRank));
  }
  schedule(time + maxLatency, EventKind::OpDone, globalOp, uint32_t(rank));
}

/// Adds the resources an op consumes per byte of its value to uses_ (which the caller clears),
/// and its statistics (see README: memory model). Weights of one resource are summed; under multicast a hop shared by several sends of
/// one op is crossed once.
void Engine::collectUses(int rank, uint32_t globalOp, const SimOp &op, double bytes,
                         double &cap) {
  auto addUse = [&](int resource, double weight) {
    for (ResourceUse &use : uses_)
      if (use.resource == resource) {
        use.weight += weight;
        return;
      }
    uses_.push_back({resource, weight});
  };
  int device = model_.deviceOfRank[rank];
  uint32_t firstSend = model_.sendBase[globalOp], endSend = model_.sendBase[globalOp + 1];
  auto pulled = [&](uint32_t s) {
    return model_.pull && model_.routes[model_.sends[s].route].intraDevice >= 0;
  };
  if (op.pulledRecv && !op.cleanPull) {  // migrates lines another core wrote: capped, shared
    cap = std::min(cap, model_.pullCapBytesPerUs[device]);
    if (model_.capacities[model_.pullBase + device] > 0) addUse(model_.pullBase + device, 1);
  }
  if (options_.memory) {
    // Pulled sends land nowhere (their receiver's op reads them); the sender writes the value
    // once when it is computed and has no dst to be read from, and a forwarded src is not read.
    uint32_t pulledSends = 0;
    for (uint32_t s = firstSend; s < endSend; ++s) pulledSends += pulled(s) ? 1 : 0;
    bool pushes = pulledSends < endSend - firstSend;
    double local = double(op.localTouches);
    if (pulledSends > 0 && op.forwardsSrc() && !pushes) local -= 1;
    else if (pulledSends > 0 && op.dsts == 0 && !op.forwardsSrc()) local += 1;
    if (local > 0) addUse(model_.memoryBase + device, local);
    result_.devices[device].memoryBytes += local * bytes;
    for (uint32_t s = firstSend; s < endSend; ++s) {
      if (pulled(s)) continue;
      int target = model_.deviceOfRank[model_.sends[s].receiverRank];
      addUse(model_.memoryBase + target, 1);  // the data lands in the receiver's memory
      result_.devices[target].memoryBytes += bytes;
    }
    if (op.operands >= 2) {
      result_.devices[device].reduceBytes += double(op.operands - 1) * bytes;
      if (model_.capacities[model_.reduceBase + device] > 0)
        addUse(model_.reduceBase + device, double(op.operands - 1));
    }
  }
  seenHops_.clear();
  for (uint32_t s = firstSend; s < endSend; ++s) {
    const SimRoute &route = model_.routes[model_.sends[s].route];
    result_.transfers++;
    result_.bytesMoved += bytes;
    if (route.intraDevice >= 0) {
      if (!model_.pull) cap = std::min(cap, route.capBytesPerUs);  // a pull is capped at its reader
      result_.devices[route.intraDevice].intraDeviceBytes += bytes;
      continue;
    }
    for (size_t h = 0; h < route.hops.size(); ++h) {
      const Hop &hop = route.hops[h];
      if (model_.multicast) {
        if (std::find(seenHops_.begin(), seenHops_.end(), hop) != seenHops_.end()) continue;
        seenHops_.push_back(hop);
      }
      addUse(route.resources[h], 1);
      LinkUsage &usage = result_.links[hop.link];
      (hop.reverse ? usage.bytesReverse : usage.bytesForward) += bytes;
    }
  }
}

void Engine::throwDeadlock() const {
  std::string message;
  size_t stuck = 0, stuckRanks = 0;
  const size_t shown = 8;
  for (int r = 0; r < plan_.ranks; ++r) {
    const std::vector<uint32_t> &begin = model_.channelBegin[size_t(r)];
    bool rankStuck = false;
    for (uint32_t c = 0; c + 1 < begin.size(); ++c) {
      const uint32_t local = next_[channelBase_[size_t(r)] + c];
      if (local >= begin[c + 1]) continue;
      rankStuck = true;
      if (stuck++ >= shown) continue;
      const PlanOp &op = plan_.programs[size_t(r)].channels[c].ops[local - begin[c]];
      if (!message.empty()) message += "; ";
      message += "rank " + std::to_string(r) + " channel " + std::to_string(c) +
                 " is stuck at op " + std::to_string(local - begin[c]) + " (" +
                 std::string(toString(op.kind)) + ")";
      if (op.recv) message += " waiting for a message from rank " + std::to_string(*op.recv);
    }
    stuckRanks += rankStuck ? 1 : 0;
  }
  if (stuck > shown) message += "; and " + std::to_string(stuck - shown) + " more";
  throw SimError("deadlock: " + std::to_string(stuckRanks) + " of " + std::to_string(plan_.ranks) +
                 " ranks never finish: " + message);
}

}  // namespace

SimResult simulate(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                   const SimOptions &options) {
  if (plan.onlyRank >= 0 && buildableFromStages(plan)) {
    // A composed plan the compiler kept for rank 0 alone: every rank's program from the stages.
    return simulate(composeHierarchical(*plan.composition, plan.ranks), topo, messageBytes,
                    options);
  }
  SimModel model = buildSimModel(plan, topo, messageBytes, options);
  SimResult result;
  result.timelines.resize(plan.ranks);
  result.links.assign(topo.links.size(), LinkUsage{});
  result.devices.assign(topo.devices.size(), DeviceUsage{});
  Engine engine(plan, model, options, result);
  engine.run();
  result.totalUs = engine.lastReleaseUs();
  for (const auto &timeline : result.timelines)
    for (const OpTiming &timing : timeline) result.totalUs = std::max(result.totalUs, timing.endUs);
  if (!std::isfinite(result.totalUs))  // validated topologies keep times finite: a backstop
    throw SimError("the simulated time of " + std::to_string(messageBytes) + " bytes on topology " +
                   topo.name + " is not a finite number: are its bandwidths and latencies sane?");
  finishUsage(topo, result);
  result.criticalPath = findCriticalPath(plan, model, result);
  return result;
}

const OpTiming &SimResult::timing(const Plan &plan, int rank, OpRef ref) const {
  size_t local = ref.op;
  for (uint32_t c = 0; c < ref.channel; ++c) local += plan.programs[size_t(rank)].channels[c].ops.size();
  return timelines.at(size_t(rank)).at(local);
}

double simulateTimeUs(const Plan &plan, const Topology &topo, uint64_t messageBytes,
                      const SimOptions &options) {
  return simulate(plan, topo, messageBytes, options).totalUs;
}

}  // namespace collplan
