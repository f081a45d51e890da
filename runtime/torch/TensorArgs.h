// TensorArgs: checks torch tensors and options of one c10d call and maps them onto collplan's.
#pragma once

#include "collplan.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <string>
#include <vector>

namespace collplan::distributed {

/// Which call a rank is making: the prefix of every error it reports, so a message names the
/// call, the rank and the reason ("collplan allreduce (rank 1 of 4): ...").
struct CallSite {
  const char *call;
  int rank;
  int size;
  std::string prefix() const;
  /// Throws std::invalid_argument with the prefix and `reason`.
  [[noreturn]] void fail(const std::string &reason) const;
};

/// collplan's dtype of a tensor the call may use: defined, on the CPU, dense (strided) and of a
/// dtype collplan supports (float32, float64, float16, bfloat16, int32, int64, uint8).
collplan_dtype_t dtypeOf(const CallSite &site, const at::Tensor &tensor, const char *role);

/// The only tensor of a list; collplan runs one tensor per call (no multi-GPU lists).
at::Tensor single(const CallSite &site, const std::vector<at::Tensor> &tensors,
                  const char *role);

/// Fails unless `tensor` has the dtype of `like` and `numel` elements.
void checkShape(const CallSite &site, const at::Tensor &tensor, const at::Tensor &like,
                int64_t numel, const char *role);

/// Fails unless `list` holds one tensor per rank, each with the dtype and size of `like`.
void checkPerRank(const CallSite &site, const std::vector<at::Tensor> &list,
                  const at::Tensor &like, const char *role);

/// A reduction as collplan runs it: AVG is SUM followed by a division by the group size
/// (floating dtypes only: an integer average would have to round).
struct Reduction {
  collplan_op_t op = COLLPLAN_SUM;
  bool average = false;
  /// Divides `result` by `size` for AVG; nothing otherwise.
  void finish(at::Tensor &result, int size) const;
};
Reduction reductionOf(const CallSite &site, const c10d::ReduceOp &op, const at::Tensor &like);

/// A tensor as a contiguous buffer for collplan: the tensor itself when it is contiguous, else
/// a contiguous copy that writeBack() copies into the tensor after the call.
class DenseBuffer {
public:
  explicit DenseBuffer(at::Tensor tensor);
  void *data() const { return dense_.data_ptr(); }
  size_t bytes() const { return dense_.nbytes(); }
  at::Tensor &dense() { return dense_; }
  /// Copies the call's result into the caller's tensor when it is a copy.
  void writeBack();

private:
  at::Tensor original_;
  at::Tensor dense_;
};

/// The tensors of `list` one after the other in one new contiguous 1-D tensor.
at::Tensor packed(const std::vector<at::Tensor> &list);
/// Copies consecutive blocks of the 1-D tensor `flat` into the tensors of `list`.
void unpack(const at::Tensor &flat, std::vector<at::Tensor> &list);

}  // namespace collplan::distributed
