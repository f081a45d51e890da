// CallQueue: a FIFO of tasks and the one thread that runs them.
#include "runtime/torch/CallQueue.h"

namespace collplan::distributed {

CallQueue::CallQueue() : worker_([this] { loop(); }) {}

CallQueue::~CallQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
  worker_.join();
}

void CallQueue::push(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void CallQueue::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace collplan::distributed
