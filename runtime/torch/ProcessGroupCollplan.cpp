// ProcessGroupCollplan: each c10d collective checked, then queued as collplan calls.
#include "runtime/torch/ProcessGroupCollplan.h"

#include <stdexcept>

namespace collplan::distributed {
namespace {

/// A collplan_call_t (field order of collplan.h).
collplan_call_t callOf(collplan_collective_t collective, const void *send, size_t sendBytes,
                       void *recv, size_t recvBytes, size_t count, collplan_dtype_t dtype,
                       collplan_op_t op = COLLPLAN_SUM, int root = 0) {
  return {collective, send, sendBytes, recv, recvBytes, count, dtype, op, root};
}

int rootOf(const CallSite &site, int64_t root) {
  if (root < 0 || root >= site.size)
    site.fail("root " + std::to_string(root) + " is not a rank of the group (0 to " +
              std::to_string(site.size - 1) + ")");
  return int(root);
}

/// True for the gather/scatter list a non-root passes: none, or one empty list.
bool noList(const std::vector<std::vector<at::Tensor>> &lists) {
  return lists.empty() || (lists.size() == 1 && lists[0].empty());
}

/// The per-rank block of an all-to-all with equal splits; unequal splits are refused.
size_t equalSplitCount(const CallSite &site, const at::Tensor &input,
                       const std::vector<int64_t> &outputSplits,
                       const std::vector<int64_t> &inputSplits) {
  const int64_t rows = input.dim() == 0 ? 1 : input.size(0);
  if (rows % site.size != 0)
    site.fail("dim 0 of the input (" + std::to_string(rows) + " rows) does not divide into " +
              std::to_string(site.size) + " equal splits");
  for (const std::vector<int64_t> *splits : {&outputSplits, &inputSplits}) {
    if (splits->empty()) continue;
    bool equal = splits->size() == size_t(site.size);
    for (int64_t s : *splits) equal = equal && s == rows / site.size;
    if (!equal)
      site.fail("unequal split sizes " + c10::str(c10::IntArrayRef(*splits)) +
                " are not supported: collplan's all-to-all moves equal blocks (" +
                std::to_string(rows / site.size) + " rows per rank here)");
  }
  return size_t(input.numel() / site.size);
}

}  // namespace

ProcessGroupCollplan::ProcessGroupCollplan(const c10::intrusive_ptr<c10d::Store> &store,
                                           int rank, int size) try
    : c10d::ProcessGroup(rank, size), group_(openGroup(*store, rank, size)) {
  init();
} catch (const std::exception &e) {
  throw std::runtime_error(CallSite{"init_process_group", rank, size}.prefix() + e.what());
}

ProcessGroupCollplan::~ProcessGroupCollplan() = default;

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::enqueue(c10d::OpType type,
                                                            std::vector<at::Tensor> outputs,
                                                            std::function<void()> body) {
  auto work = c10::make_intrusive<CollplanWork>(rank_, type, nullptr, std::move(outputs));
  queue_.push([work, body = std::move(body)] {
    try {
      body();
      work->complete(nullptr);
    } catch (...) {
      work->complete(std::current_exception());
    }
  });
  return work;
}

void ProcessGroupCollplan::run(const CallSite &site, const collplan_call_t &call) {
  if (collplan_call(group_.comm.get(), &call) != COLLPLAN_SUCCESS)
    throw std::runtime_error(std::string("collplan ") + site.call + ": " + collplan_last_error());
}

void ProcessGroupCollplan::refuse(const char *call, const std::string &reason) const {
  site(call).fail(reason);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::broadcast(
    std::vector<at::Tensor> &tensors, const c10d::BroadcastOptions &opts) {
  const CallSite s = site("broadcast");
  const at::Tensor t = single(s, tensors, "broadcast");
  const collplan_dtype_t dtype = dtypeOf(s, t, "broadcast");
  const int root = rootOf(s, opts.rootRank);
  if (opts.rootTensor != 0) s.fail("rootTensor must be 0 (one tensor per call)");
  return enqueue(c10d::OpType::BROADCAST, {t}, [this, s, t, dtype, root] {
    DenseBuffer io(t);
    run(s, callOf(COLLPLAN_BROADCAST, io.data(), io.bytes(), io.data(), io.bytes(),
                  size_t(t.numel()), dtype, COLLPLAN_SUM, root));
    io.writeBack();
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::allreduce(
    std::vector<at::Tensor> &tensors, const c10d::AllreduceOptions &opts) {
  const CallSite s = site("allreduce");
  const at::Tensor t = single(s, tensors, "allreduce");
  const collplan_dtype_t dtype = dtypeOf(s, t, "allreduce");
  const Reduction red = reductionOf(s, opts.reduceOp, t);
  return enqueue(c10d::OpType::ALLREDUCE, {t}, [this, s, t, dtype, red] {
    DenseBuffer io(t);
    run(s, callOf(COLLPLAN_ALLREDUCE, io.data(), io.bytes(), io.data(), io.bytes(),
                  size_t(t.numel()), dtype, red.op));
    red.finish(io.dense(), size_);
    io.writeBack();
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::reduce(std::vector<at::Tensor> &tensors,
                                                           const c10d::ReduceOptions &opts) {
  const CallSite s = site("reduce");
  const at::Tensor t = single(s, tensors, "reduce");
  const collplan_dtype_t dtype = dtypeOf(s, t, "reduce");
  const Reduction red = reductionOf(s, opts.reduceOp, t);
  const int root = rootOf(s, opts.rootRank);
  if (opts.rootTensor != 0) s.fail("rootTensor must be 0 (one tensor per call)");
  return enqueue(c10d::OpType::REDUCE, {t}, [this, s, t, dtype, red, root] {
    DenseBuffer io(t);
    const bool isRoot = rank_ == root;  // only the root's tensor receives the result
    run(s, callOf(COLLPLAN_REDUCE, io.data(), io.bytes(), isRoot ? io.data() : nullptr,
                  isRoot ? io.bytes() : 0, size_t(t.numel()), dtype, red.op, root));
    if (!isRoot) return;
    red.finish(io.dense(), size_);
    io.writeBack();
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::allgather(
    std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
    const c10d::AllgatherOptions &) {
  const CallSite s = site("allgather");
  const at::Tensor in = single(s, inputs, "input");
  const collplan_dtype_t dtype = dtypeOf(s, in, "input");
  if (outputs.size() != 1)
    s.fail("takes one output list, got " + std::to_string(outputs.size()));
  checkPerRank(s, outputs[0], in, "output");
  return enqueue(c10d::OpType::ALLGATHER, outputs[0],
                 [this, s, in, dtype, list = outputs[0]]() mutable {
                   DenseBuffer src(in);
                   at::Tensor flat = at::empty({size_ * in.numel()}, in.options());
                   run(s, callOf(COLLPLAN_ALLGATHER, src.data(), src.bytes(), flat.data_ptr(),
                                 flat.nbytes(), size_t(in.numel()), dtype));
                   unpack(flat, list);
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::_allgather_base(
    at::Tensor &output, at::Tensor &input, const c10d::AllgatherOptions &) {
  const CallSite s = site("_allgather_base");
  const collplan_dtype_t dtype = dtypeOf(s, input, "input");
  checkShape(s, output, input, size_ * input.numel(), "output");
  return enqueue(c10d::OpType::_ALLGATHER_BASE, {output},
                 [this, s, out = output, in = input, dtype] {
                   DenseBuffer src(in), dst(out);  // in place when in is out's block of rank
                   run(s, callOf(COLLPLAN_ALLGATHER, src.data(), src.bytes(), dst.data(),
                                 dst.bytes(), size_t(in.numel()), dtype));
                   dst.writeBack();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::gather(
    std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
    const c10d::GatherOptions &opts) {
  const CallSite s = site("gather");
  const at::Tensor in = single(s, inputs, "input");
  const collplan_dtype_t dtype = dtypeOf(s, in, "input");
  const int root = rootOf(s, opts.rootRank);
  if (rank_ != root) {
    if (!noList(outputs)) s.fail("only the root (rank " + std::to_string(root) +
                                 ") passes a gather list");
    return enqueue(c10d::OpType::GATHER, {}, [this, s, in, dtype, root] {
      DenseBuffer src(in);
      run(s, callOf(COLLPLAN_GATHER, src.data(), src.bytes(), nullptr, 0, size_t(in.numel()),
                    dtype, COLLPLAN_SUM, root));
    });
  }
  if (outputs.size() != 1) s.fail("the root takes one gather list, got " +
                                  std::to_string(outputs.size()));
  checkPerRank(s, outputs[0], in, "gather");
  return enqueue(c10d::OpType::GATHER, outputs[0],
                 [this, s, in, dtype, root, list = outputs[0]]() mutable {
                   DenseBuffer src(in);
                   at::Tensor flat = at::empty({size_ * in.numel()}, in.options());
                   run(s, callOf(COLLPLAN_GATHER, src.data(), src.bytes(), flat.data_ptr(),
                                 flat.nbytes(), size_t(in.numel()), dtype, COLLPLAN_SUM, root));
                   unpack(flat, list);
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::scatter(
    std::vector<at::Tensor> &outputs, std::vector<std::vector<at::Tensor>> &inputs,
    const c10d::ScatterOptions &opts) {
  const CallSite s = site("scatter");
  const at::Tensor out = single(s, outputs, "output");
  const collplan_dtype_t dtype = dtypeOf(s, out, "output");
  const int root = rootOf(s, opts.rootRank);
  std::vector<at::Tensor> list;
  if (rank_ == root) {
    if (inputs.size() != 1) s.fail("the root takes one scatter list, got " +
                                   std::to_string(inputs.size()));
    checkPerRank(s, inputs[0], out, "scatter");
    list = inputs[0];
  } else if (!noList(inputs)) {
    s.fail("only the root (rank " + std::to_string(root) + ") passes a scatter list");
  }
  return enqueue(c10d::OpType::SCATTER, {out}, [this, s, out, dtype, root, list] {
    const at::Tensor flat = list.empty() ? at::Tensor() : packed(list);
    DenseBuffer dst(out);
    run(s, callOf(COLLPLAN_SCATTER, flat.defined() ? flat.data_ptr() : nullptr,
                  flat.defined() ? flat.nbytes() : 0, dst.data(), dst.bytes(),
                  size_t(out.numel()), dtype, COLLPLAN_SUM, root));
    dst.writeBack();
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::reduce_scatter(
    std::vector<at::Tensor> &outputs, std::vector<std::vector<at::Tensor>> &inputs,
    const c10d::ReduceScatterOptions &opts) {
  const CallSite s = site("reduce_scatter");
  const at::Tensor out = single(s, outputs, "output");
  const collplan_dtype_t dtype = dtypeOf(s, out, "output");
  const Reduction red = reductionOf(s, opts.reduceOp, out);
  if (inputs.size() != 1) s.fail("takes one input list, got " + std::to_string(inputs.size()));
  checkPerRank(s, inputs[0], out, "input");
  return enqueue(c10d::OpType::REDUCE_SCATTER, {out},
                 [this, s, out, dtype, red, list = inputs[0]] {
                   const at::Tensor flat = packed(list);
                   DenseBuffer dst(out);
                   run(s, callOf(COLLPLAN_REDUCE_SCATTER, flat.data_ptr(), flat.nbytes(),
                                 dst.data(), dst.bytes(), size_t(out.numel()), dtype, red.op));
                   red.finish(dst.dense(), size_);
                   dst.writeBack();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::_reduce_scatter_base(
    at::Tensor &output, at::Tensor &input, const c10d::ReduceScatterOptions &opts) {
  const CallSite s = site("_reduce_scatter_base");
  const collplan_dtype_t dtype = dtypeOf(s, output, "output");
  const Reduction red = reductionOf(s, opts.reduceOp, output);
  checkShape(s, input, output, size_ * output.numel(), "input");
  return enqueue(c10d::OpType::_REDUCE_SCATTER_BASE, {output},
                 [this, s, out = output, in = input, dtype, red] {
                   DenseBuffer src(in), dst(out);  // in place when out is in's block of rank
                   run(s, callOf(COLLPLAN_REDUCE_SCATTER, src.data(), src.bytes(), dst.data(),
                                 dst.bytes(), size_t(out.numel()), dtype, red.op));
                   red.finish(dst.dense(), size_);
                   dst.writeBack();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::alltoall_base(
    at::Tensor &output, at::Tensor &input, std::vector<int64_t> &outputSplits,
    std::vector<int64_t> &inputSplits, const c10d::AllToAllOptions &) {
  const CallSite s = site("alltoall_base");
  const collplan_dtype_t dtype = dtypeOf(s, input, "input");
  checkShape(s, output, input, input.numel(), "output");
  const size_t count = equalSplitCount(s, input, outputSplits, inputSplits);
  return enqueue(c10d::OpType::ALLTOALL_BASE, {output},
                 [this, s, out = output, in = input, dtype, count] {
                   DenseBuffer src(in), dst(out);
                   run(s, callOf(COLLPLAN_ALLTOALL, src.data(), src.bytes(), dst.data(),
                                 dst.bytes(), count, dtype));
                   dst.writeBack();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::alltoall(
    std::vector<at::Tensor> &outputs, std::vector<at::Tensor> &inputs,
    const c10d::AllToAllOptions &) {
  const CallSite s = site("alltoall");
  if (inputs.empty()) s.fail("takes one input tensor per rank, got none");
  const collplan_dtype_t dtype = dtypeOf(s, inputs[0], "input");
  checkPerRank(s, inputs, inputs[0], "input");  // equal blocks: collplan's all-to-all
  checkPerRank(s, outputs, inputs[0], "output");
  return enqueue(c10d::OpType::ALLTOALL, outputs,
                 [this, s, dtype, ins = inputs, outs = outputs]() mutable {
                   const at::Tensor send = packed(ins);
                   at::Tensor recv = at::empty_like(send);
                   run(s, callOf(COLLPLAN_ALLTOALL, send.data_ptr(), send.nbytes(),
                                 recv.data_ptr(), recv.nbytes(), size_t(ins[0].numel()), dtype));
                   unpack(recv, outs);
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::barrier(const c10d::BarrierOptions &) {
  const CallSite s = site("barrier");
  return enqueue(c10d::OpType::BARRIER, {}, [this, s] {
    run(s, callOf(COLLPLAN_BARRIER, nullptr, 0, nullptr, 0, 0, COLLPLAN_U8));
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::allreduce_coalesced(
    std::vector<at::Tensor> &, const c10d::AllreduceCoalescedOptions &) {
  refuse("allreduce_coalesced", "coalesced calls are not supported: call all_reduce once per "
                                "tensor (or on one flattened tensor)");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::allgather_coalesced(
    std::vector<std::vector<at::Tensor>> &, std::vector<at::Tensor> &,
    const c10d::AllgatherOptions &) {
  refuse("allgather_coalesced", "coalesced calls are not supported: call all_gather once per "
                                "tensor");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::send(std::vector<at::Tensor> &, int,
                                                          int) {
  refuse("send", "point-to-point calls are not supported: collplan runs collectives only "
                 "(use a gloo group, dist.new_group(backend=\"gloo\"), for send/recv)");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::recv(std::vector<at::Tensor> &, int,
                                                          int) {
  refuse("recv", "point-to-point calls are not supported: collplan runs collectives only "
                 "(use a gloo group, dist.new_group(backend=\"gloo\"), for send/recv)");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCollplan::recvAnysource(std::vector<at::Tensor> &,
                                                                   int) {
  refuse("recv", "point-to-point calls are not supported: collplan runs collectives only "
                 "(use a gloo group, dist.new_group(backend=\"gloo\"), for send/recv)");
}

c10::intrusive_ptr<ProcessGroupCollplan> createProcessGroupCollplan(
    const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
    const std::chrono::duration<float> &) {
  return c10::make_intrusive<ProcessGroupCollplan>(store, rank, size);
}

}  // namespace collplan::distributed
