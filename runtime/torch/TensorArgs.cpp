// TensorArgs: tensor and option checks of c10d calls, their collplan dtypes and reductions.
#include "runtime/torch/TensorArgs.h"

#include <stdexcept>

namespace collplan::distributed {

std::string CallSite::prefix() const {
  return std::string("collplan ") + call + " (rank " + std::to_string(rank) + " of " +
         std::to_string(size) + "): ";
}

void CallSite::fail(const std::string &reason) const {
  throw std::invalid_argument(prefix() + reason);
}

collplan_dtype_t dtypeOf(const CallSite &site, const at::Tensor &tensor, const char *role) {
  const std::string what = std::string("the ") + role + " tensor";
  if (!tensor.defined()) site.fail(what + " is undefined");
  if (!tensor.device().is_cpu())
    site.fail(what + " is on " + tensor.device().str() +
              ": the collplan backend runs on CPU tensors only (cpu-shm)");
  if (tensor.layout() != at::kStrided)
    site.fail(what + " is not dense (layout " + c10::str(tensor.layout()) +
              "): the collplan backend takes strided tensors only");
  switch (tensor.scalar_type()) {
  case at::kFloat: return COLLPLAN_F32;
  case at::kDouble: return COLLPLAN_F64;
  case at::kHalf: return COLLPLAN_F16;
  case at::kBFloat16: return COLLPLAN_BF16;
  case at::kInt: return COLLPLAN_I32;
  case at::kLong: return COLLPLAN_I64;
  case at::kByte: return COLLPLAN_U8;
  default:
    site.fail(what + " has dtype " + std::string(c10::toString(tensor.scalar_type())) +
              ", which collplan does not support (float32, float64, float16, bfloat16, "
              "int32, int64, uint8)");
  }
}

at::Tensor single(const CallSite &site, const std::vector<at::Tensor> &tensors,
                  const char *role) {
  if (tensors.size() != 1)
    site.fail(std::string("takes exactly one ") + role + " tensor, got " +
              std::to_string(tensors.size()) +
              " (the collplan backend has no multi-tensor or multi-GPU calls)");
  dtypeOf(site, tensors[0], role);
  return tensors[0];
}

void checkShape(const CallSite &site, const at::Tensor &tensor, const at::Tensor &like,
                int64_t numel, const char *role) {
  dtypeOf(site, tensor, role);
  if (tensor.scalar_type() != like.scalar_type())
    site.fail(std::string("the ") + role + " tensor has dtype " +
              c10::toString(tensor.scalar_type()) + ", the input " +
              c10::toString(like.scalar_type()));
  if (tensor.numel() != numel)
    site.fail(std::string("the ") + role + " tensor has " + std::to_string(tensor.numel()) +
              " elements, " + std::to_string(numel) + " expected");
}

void checkPerRank(const CallSite &site, const std::vector<at::Tensor> &list,
                  const at::Tensor &like, const char *role) {
  if (list.size() != size_t(site.size))
    site.fail(std::string("the ") + role + " list holds " + std::to_string(list.size()) +
              " tensors, one per rank (" + std::to_string(site.size) + ") expected");
  for (const at::Tensor &t : list) checkShape(site, t, like, like.numel(), role);
}

void Reduction::finish(at::Tensor &result, int size) const {
  if (average) result.div_(size);
}

Reduction reductionOf(const CallSite &site, const c10d::ReduceOp &op, const at::Tensor &like) {
  switch (op.op_) {
  case c10d::ReduceOp::SUM: return {COLLPLAN_SUM, false};
  case c10d::ReduceOp::PRODUCT: return {COLLPLAN_PROD, false};
  case c10d::ReduceOp::MIN: return {COLLPLAN_MIN, false};
  case c10d::ReduceOp::MAX: return {COLLPLAN_MAX, false};
  case c10d::ReduceOp::AVG:
    if (!at::isFloatingType(like.scalar_type()))
      site.fail(std::string("ReduceOp.AVG needs a floating dtype (it is SUM, then a division "
                            "by the group size), not ") +
                c10::toString(like.scalar_type()));
    return {COLLPLAN_SUM, true};
  default:
    site.fail("reduce op " + std::to_string(int(op.op_)) +
              " is not supported: collplan reduces with SUM, PRODUCT, MIN, MAX and AVG "
              "(no bitwise or premultiplied sums)");
  }
}

DenseBuffer::DenseBuffer(at::Tensor tensor)
    : original_(std::move(tensor)), dense_(original_.contiguous()) {}

void DenseBuffer::writeBack() {
  if (!dense_.is_same(original_)) original_.copy_(dense_);
}

at::Tensor packed(const std::vector<at::Tensor> &list) {
  std::vector<at::Tensor> flat;
  flat.reserve(list.size());
  for (const at::Tensor &t : list) flat.push_back(t.reshape({-1}));
  return at::cat(flat);
}

void unpack(const at::Tensor &flat, std::vector<at::Tensor> &list) {
  int64_t offset = 0;
  for (at::Tensor &t : list) {
    t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
}

}  // namespace collplan::distributed
