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
  std::vector<CriticalStep> path;
  int rank = -1, index = -1;
  double latest = -1;
  for (int r = 0; r < plan.ranks; ++r)
    for (size_t i = 0; i < result.timelines[r].size(); ++i)
      if (result.timelines[r][i].endUs >= latest) {  // ties: the later op (it ends the chain)
        latest = result.timelines[r][i].endUs;
        rank = r;
        index = int(i);
      }
  while (rank >= 0) {
    const OpTiming &timing = result.timelines[rank][index];
    const PlanOp &op = plan.programs[rank].ops[index];
    CriticalStep step{rank, index, timing.startUs, timing.endUs, CriticalCause::Start};
    double previousEnd = index > 0 ? result.timelines[rank][index - 1].endUs : 0;
    uint32_t sender = model.senderOp[model.slot(rank, uint32_t(index))];
    if (op.recv && sender != kNoOp && timing.dataReadyUs >= previousEnd) {
      step.cause = CriticalCause::Transfer;
      std::tie(rank, index) = model.locate(sender);
    } else if (index > 0) {
      step.cause = CriticalCause::ProgramOrder;
      --index;
    } else {
      rank = -1;
    }
    path.push_back(step);
  }
  return {path.rbegin(), path.rend()};
}

nlohmann::json simResultToJson(const SimResult &result, const Plan &plan) {
  using nlohmann::json;
  json timelines = json::array();
  for (size_t r = 0; r < result.timelines.size(); ++r) {
    json ops = json::array();
    for (size_t i = 0; i < result.timelines[r].size(); ++i) {
      const OpTiming &timing = result.timelines[r][i];
      const PlanOp &op = plan.programs[r].ops[i];
      json entry = {{"op", i},
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
