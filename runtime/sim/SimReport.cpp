// Utilisation, critical path and the JSON form of a simulation result.
#include "runtime/sim/SimReport.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace collplan {
namespace {

const char *causeName(CriticalCause cause) {
  switch (cause) {
  case CriticalCause::Start: return "start";
  case CriticalCause::ProgramOrder: return "program_order";
  case CriticalCause::Transfer: return "transfer";
  case CriticalCause::After: return "after";
  }
  return "start";
}

}  // namespace

void finishUsage(const Topology &topo, SimResult &result) {
  double total = result.totalUs;
  for (size_t l = 0; l < result.links.size(); ++l) {
    LinkUsage &usage = result.links[l];
    const Link &link = topo.links[l];
    double busiest = link.duplex ? std::max(usage.bytesForward, usage.bytesReverse)
                                 : usage.bytesForward + usage.bytesReverse;
    double capacity = link.bandwidthGBps * 1e3 * total;
    usage.utilisation = capacity > 0 ? busiest / capacity : 0;
  }
  for (size_t d = 0; d < result.devices.size(); ++d) {
    DeviceUsage &usage = result.devices[d];
    double capacity = topo.devices[d].memBandwidthGBps * 1e3 * total;
    usage.memoryUtilisation = capacity > 0 ? usage.memoryBytes / capacity : 0;
  }
}

std::vector<CriticalStep> findCriticalPath(const Plan &plan, const SimModel &model,
                                           const SimResult &result) {
  (void)plan;
  std::vector<CriticalStep> path;
  int rank = -1;
  uint32_t local = 0;
  double latest = -1;
  for (int r = 0; r < model.ranks; ++r)
    for (size_t i = 0; i < result.timelines[r].size(); ++i)
      if (result.timelines[r][i].endUs >= latest) {  // ties: the later op (it ends the chain)
        latest = result.timelines[r][i].endUs;
        rank = r;
        local = uint32_t(i);
      }
  while (rank >= 0) {
    const OpTiming &timing = result.timelines[rank][local];
    const OpRef ref = model.opRef(rank, local);
    const uint32_t slot = model.slot(rank, local);
    CriticalStep step{rank, int(ref.channel), int(ref.op), timing.startUs, timing.endUs,
                      CriticalCause::Start};
    // What released the op last: its message, the previous op of its channel, or an op of
    // another channel it waits for (`after`).
    double released = -1;
    int nextRank = -1;
    uint32_t nextLocal = 0;
    auto consider = [&](double when, CriticalCause cause, int r, uint32_t l) {
      if (when > released) {
        released = when;
        step.cause = cause;
        nextRank = r;
        nextLocal = l;
      }
    };
    // Ties go to the message (the transfer is what the op waited for), then program order.
    const uint32_t sender = model.senderOp[slot];
    if (model.ops[slot].hasRecv && sender != kNoOp) {
      auto [r, l] = model.locate(sender);
      consider(timing.dataReadyUs, CriticalCause::Transfer, r, uint32_t(l));
    }
    if (ref.op > 0) consider(result.timelines[rank][local - 1].endUs, CriticalCause::ProgramOrder,
                             rank, local - 1);
    for (uint32_t k = model.afterBase[slot]; k < model.afterBase[slot + 1]; ++k) {
      auto [r, l] = model.locate(model.afterSlots[k]);
      consider(result.timelines[r][size_t(l)].endUs, CriticalCause::After, r, uint32_t(l));
    }
    path.push_back(step);
    rank = nextRank;
    local = nextLocal;
  }
  return {path.rbegin(), path.rend()};
}

nlohmann::json simResultToJson(const SimResult &result, const Plan &plan) {
  using nlohmann::json;
  json timelines = json::array();
  for (size_t r = 0; r < result.timelines.size(); ++r) {
    json ops = json::array();
    size_t i = 0;
    const std::vector<Channel> &channels = plan.programs[r].channels;
    for (size_t c = 0; c < channels.size(); ++c)
      for (size_t k = 0; k < channels[c].ops.size(); ++k, ++i) {
      const OpTiming &timing = result.timelines[r][i];
      const PlanOp &op = channels[c].ops[k];
      json entry = {{"channel", c},
                    {"op", k},
                    {"kind", std::string(toString(op.kind))},
                    {"step", op.step},
                    {"start_us", timing.startUs},
                    {"end_us", timing.endUs}};
      if (!std::isnan(timing.dataReadyUs)) entry["data_ready_us"] = timing.dataReadyUs;
      ops.push_back(std::move(entry));
    }
    timelines.push_back({{"rank", r}, {"ops", std::move(ops)}});
  }
  json links = json::array();
  for (size_t l = 0; l < result.links.size(); ++l)
    links.push_back({{"link", l},
                     {"bytes_forward", result.links[l].bytesForward},
                     {"bytes_reverse", result.links[l].bytesReverse},
                     {"utilisation", result.links[l].utilisation}});
  json devices = json::array();
  for (size_t d = 0; d < result.devices.size(); ++d)
    devices.push_back({{"device", d},
                       {"memory_bytes", result.devices[d].memoryBytes},
                       {"reduce_bytes", result.devices[d].reduceBytes},
                       {"intra_device_bytes", result.devices[d].intraDeviceBytes},
                       {"memory_utilisation", result.devices[d].memoryUtilisation}});
  json critical = json::array();
  for (const CriticalStep &step : result.criticalPath)
    critical.push_back({{"rank", step.rank},
                        {"channel", step.channel},
                        {"op", step.op},
                        {"start_us", step.startUs},
                        {"end_us", step.endUs},
                        {"cause", causeName(step.cause)}});
  return {{"total_us", result.totalUs},
          {"transfers", result.transfers},
          {"bytes_moved", result.bytesMoved},
          {"timelines", std::move(timelines)},
          {"links", std::move(links)},
          {"devices", std::move(devices)},
          {"critical_path", std::move(critical)}};
}

}  // namespace collplan
