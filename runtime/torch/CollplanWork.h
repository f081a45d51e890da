// CollplanWork: the c10d::Work of one collplan call, completed by the process group's worker.
#pragma once

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <exception>
#include <vector>

namespace collplan::distributed {

/// One issued call. wait() and isCompleted() are c10d::Work's; the worker thread calls
/// complete() once the call has run. The future (what DDP's communication hooks chain on)
/// holds the output tensors, or the call's error.
class CollplanWork final : public c10d::Work {
public:
  CollplanWork(int rank, c10d::OpType type, const char *profilingTitle,
               std::vector<at::Tensor> outputs);

  /// Marks the call done: success when `error` is null, else wait() rethrows `error`.
  void complete(std::exception_ptr error);

  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

}  // namespace collplan::distributed
