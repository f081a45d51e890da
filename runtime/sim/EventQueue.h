// EventQueue: the simulator's future events, bucketed by exact time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace collplan {

enum class EventKind : uint8_t {
  FlowDone,  ///< an activity may have moved its last byte (a = flow, b = version)
  OpEnd,     ///< an op's sends are all delivered and its engine is free (a = global op, b = rank)
  Arrival,   ///< one transfer's data is at its receiver (a = receiving global op, b = rank)
  OpDone,    ///< an op is over, its sends still in flight (a = global op, b = rank)
  OverheadDone,  ///< an op's software overhead is paid: it starts moving data (a = global op, b = rank)
};

struct Event {
  EventKind kind;
  uint32_t a, b;
};

/// Future events grouped by their exact time: a min-heap over distinct times and one bucket of
/// events per time, in push order (so runs are deterministic). Collective schedules are highly
/// symmetric — all ranks of a ring finish a step at the same instant — so many events share a
/// time and most pushes cost a hash lookup instead of a heap operation.
class EventQueue {
public:
  bool empty() const { return times_.empty(); }
  double nextTime() const { return times_.front(); }

  void push(double time, const Event &event) {
    auto [it, inserted] = bucketOf_.try_emplace(time, 0);
    if (inserted) {
      if (freeBuckets_.empty()) {
        it->second = uint32_t(buckets_.size());
        buckets_.emplace_back();
      } else {
        it->second = freeBuckets_.back();
        freeBuckets_.pop_back();
      }
      times_.push_back(time);
      std::push_heap(times_.begin(), times_.end(), std::greater<double>());
    }
    buckets_[it->second].push_back(event);
  }

  /// Moves the events of the earliest time into `out` (replacing its contents).
  void popEarliest(std::vector<Event> &out) {
    double time = times_.front();
    std::pop_heap(times_.begin(), times_.end(), std::greater<double>());
    times_.pop_back();
    auto it = bucketOf_.find(time);
    uint32_t bucket = it->second;
    bucketOf_.erase(it);
    out.clear();
    out.swap(buckets_[bucket]);
    freeBuckets_.push_back(bucket);
  }

private:
  std::vector<double> times_;
  std::unordered_map<double, uint32_t> bucketOf_;
  std::vector<std::vector<Event>> buckets_;
  std::vector<uint32_t> freeBuckets_;
};

}  // namespace collplan
