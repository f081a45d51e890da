// Weighted max-min fair sharing by progressive filling over the touched components only.
#include "runtime/sim/FairShare.h"

#include <algorithm>
#include <cmath>

namespace collplan {

FairShare::FairShare(std::vector<double> capacities, bool shared) : shared_(shared) {
  resources_.resize(capacities.size());
  for (size_t e = 0; e < capacities.size(); ++e) resources_[e].capacity = capacities[e];
}

int FairShare::add(double now, double bytes, const std::vector<ResourceUse> &uses, double cap,
                   uint64_t tag) {
  int id;
  if (!freeFlows_.empty()) {
    id = freeFlows_.back();
    freeFlows_.pop_back();
  } else {
    id = int(flows_.size());
    flows_.emplace_back();
  }
  Flow &flow = flows_[id];
  flow.remaining = bytes;
  flow.since = now;
  flow.rate = 0;
  flow.cap = cap;
  flow.tag = tag;
  flow.version++;
  flow.live = true;
  flow.fresh = true;
  flow.frozen = false;
  flow.uses.clear();
  for (const ResourceUse &use : uses) {
    Resource &resource = resources_[use.resource];
    flow.uses.push_back({use.resource, use.weight, int(resource.members.size())});
    if (shared_) {
      resource.members.push_back({id, int(flow.uses.size()) - 1});
      if (!resource.dirty) {
        resource.dirty = true;
        dirtyResources_.push_back(use.resource);
      }
    }
  }
  freshFlows_.push_back(id);
  return id;
}

void FairShare::remove(int id) {
  Flow &flow = flows_[id];
  if (shared_) {
    for (const Use &use : flow.uses) {
      Resource &resource = resources_[use.resource];
      // Swap-remove this flow from the member list and repoint the member that moved.
      Member moved = resource.members.back();
      resource.members[use.slot] = moved;
      flows_[moved.flow].uses[moved.use].slot = use.slot;
      resource.members.pop_back();
      if (!resource.dirty) {
        resource.dirty = true;
        dirtyResources_.push_back(use.resource);
      }
    }
  }
  flow.live = false;
  flow.version++;
  freeFlows_.push_back(id);
}

double FairShare::finishTime(int id) const {
  const Flow &flow = flows_[id];
  return flow.since + flow.remaining / flow.rate;
}

double FairShare::aloneRate(const std::vector<ResourceUse> &uses, double cap) const {
  double rate = cap;
  for (const ResourceUse &use : uses)
    rate = std::min(rate, resources_[use.resource].capacity / use.weight);
  return rate;
}

double FairShare::isolatedRate(const Flow &flow) const {
  double rate = flow.cap;
  for (const Use &use : flow.uses)
    rate = std::min(rate, resources_[use.resource].capacity / use.weight);
  return rate;
}

const std::vector<int> &FairShare::update(double now) {
  changed_.clear();
  if (!shared_) {
    for (int id : freshFlows_) {
      Flow &flow = flows_[id];
      flow.rate = isolatedRate(flow);
      flow.fresh = false;
      flow.version++;
      changed_.push_back(id);
    }
    freshFlows_.clear();
    return changed_;
  }
  if (dirtyResources_.empty() && freshFlows_.empty()) return changed_;
  collectComponent(++stamp_);
  solveComponent(now);
  return changed_;
}

void FairShare::collectComponent(uint32_t stamp) {
  componentFlows_.clear();
  componentResources_.clear();
  stack_.clear();
  auto visitFlow = [&](int id) {
    Flow &flow = flows_[id];
    if (!flow.live || flow.seen == stamp) return;
    flow.seen = stamp;
    componentFlows_.push_back(id);
    for (const Use &use : flow.uses) {
      Resource &resource = resources_[use.resource];
      if (resource.seen != stamp) {
        resource.seen = stamp;
        stack_.push_back(use.resource);
      }
    }
  };
  for (int e : dirtyResources_) {
    resources_[e].dirty = false;
    if (resources_[e].seen != stamp) {
      resources_[e].seen = stamp;
      stack_.push_back(e);
    }
  }
  dirtyResources_.clear();
  for (int id : freshFlows_) visitFlow(id);
  freshFlows_.clear();
  while (!stack_.empty()) {
    int e = stack_.back();
    stack_.pop_back();
    componentResources_.push_back(e);
    for (const Member &member : resources_[e].members) visitFlow(member.flow);
  }
}

void FairShare::pushResource(int e, double floor) {
  Resource &resource = resources_[e];
  if (resource.weightSum <= 0) return;
  double level = (resource.capacity - resource.load) / resource.weightSum;
  heap_.push_back({std::max(level, floor), e, resource.version});
  std::push_heap(heap_.begin(), heap_.end());
}

void FairShare::freeze(int id, double rate) {
  Flow &flow = flows_[id];
  flow.frozen = true;
  flow.rate = rate;
  for (const Use &use : flow.uses) {
    Resource &resource = resources_[use.resource];
    resource.load += use.weight * rate;
    resource.weightSum -= use.weight;
    resource.version++;
    if (resource.weightSum < 1e-12 * use.weight) resource.weightSum = 0;
    pushResource(use.resource, rate);
  }
}

void FairShare::solveComponent(double now) {
  ++recomputations_;
  std::vector<double> &previous = scratchRates_;
  previous.resize(componentFlows_.size());
  for (size_t k = 0; k < componentFlows_.size(); ++k) {
    Flow &flow = flows_[componentFlows_[k]];
    if (!flow.fresh) flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - flow.since));
    flow.since = now;
    flow.frozen = false;
    previous[k] = flow.fresh ? -1 : flow.rate;
  }
  heap_.clear();
  for (int e : componentResources_) {
    Resource &resource = resources_[e];
    resource.load = 0;
    resource.weightSum = 0;
    for (const Member &member : resource.members)
      resource.weightSum += flows_[member.flow].uses[member.use].weight;
    resource.version++;
    pushResource(e, 0);
  }
  for (int id : componentFlows_)
    if (std::isfinite(flows_[id].cap)) {
      heap_.push_back({flows_[id].cap, ~id, 0});
      std::push_heap(heap_.begin(), heap_.end());
    }
  // Progressive filling: every unfrozen flow runs at the current level; the first resource
  // (or private cap) to saturate freezes its flows at that level.
  size_t unfrozen = componentFlows_.size();
  double level = 0;
  while (unfrozen > 0 && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end());
    Candidate next = heap_.back();
    heap_.pop_back();
    if (next.id < 0) {
      int id = ~next.id;
      if (flows_[id].frozen) continue;
      level = std::max(level, next.level);
      freeze(id, level);
      --unfrozen;
      continue;
    }
    Resource &resource = resources_[next.id];
    if (next.version != resource.version) continue;
    level = std::max(level, next.level);
    for (const Member &member : resource.members)
      if (!flows_[member.flow].frozen) {
        freeze(member.flow, level);
        --unfrozen;
      }
  }
  for (size_t k = 0; k < componentFlows_.size(); ++k) {
    int id = componentFlows_[k];
    Flow &flow = flows_[id];
    if (!flow.frozen) flow.rate = flow.cap;  // no resource and no cap: unreachable by design
    flow.fresh = false;
    if (flow.rate != previous[k]) {
      flow.version++;
      changed_.push_back(id);
    }
  }
}

}  // namespace collplan
