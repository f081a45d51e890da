// CallQueue: the worker thread that runs a process group's calls one at a time, in issue order.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace collplan::distributed {

/// Runs tasks on one thread in the order they were pushed. A collplan communicator is used by
/// one thread at a time and every rank must make its calls in the same order: one worker per
/// process group gives both, while the caller's thread goes on (c10d's asynchronous Work).
class CallQueue {
public:
  CallQueue();
  /// Runs the tasks still queued, then joins the worker.
  ~CallQueue();
  CallQueue(const CallQueue &) = delete;
  CallQueue &operator=(const CallQueue &) = delete;

  /// Queues `task`; it must not throw (it reports its errors through its Work).
  void push(std::function<void()> task);

private:
  void loop();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread worker_;  ///< last: starts once the members above exist
};

}  // namespace collplan::distributed
