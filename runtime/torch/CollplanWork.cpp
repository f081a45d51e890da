// CollplanWork: completion of a collplan call's c10d::Work and of its future.
#include "runtime/torch/CollplanWork.h"

namespace collplan::distributed {

CollplanWork::CollplanWork(int rank, c10d::OpType type, const char *profilingTitle,
                           std::vector<at::Tensor> outputs)
    : c10d::Work(rank, type, profilingTitle), outputs_(std::move(outputs)),
      future_(c10::make_intrusive<c10::ivalue::Future>(
          c10::ListType::create(c10::TensorType::get()))) {}

void CollplanWork::complete(std::exception_ptr error) {
  finish(error);
  if (error)
    future_->setError(error);
  else
    future_->markCompleted(c10::IValue(outputs_));
}

}  // namespace collplan::distributed
