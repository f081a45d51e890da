// ProcessGroupCollplan: torch.distributed's "collplan" backend, one cpu-shm rank per process.
#pragma once

#include "collplan.hpp"
#include "runtime/torch/CallQueue.h"
#include "runtime/torch/CollplanWork.h"
#include "runtime/torch/GroupTransport.h"
#include "runtime/torch/TensorArgs.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <functional>
#include <string>

namespace collplan::distributed {

/// A c10d::ProcessGroup (torch 1.13's API) whose collectives are collplan calls on a cpu-shm
/// communicator, or on the mpi backend when the processes are MPI ranks (GroupTransport.h). Arguments are checked when a call is issued (errors are thrown there, naming
/// the call, the rank and the reason); the call itself runs on the group's worker thread in
/// issue order and completes a CollplanWork, whose wait() rethrows collplan's error.
/// CPU tensors only; one tensor per call; no point-to-point.
class ProcessGroupCollplan final : public c10d::ProcessGroup {
public:
  /// Joins the group through `store` (GroupTransport.h): its cpu-shm job or its MPI
  /// processes, then this rank's communicator.
  ProcessGroupCollplan(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size);
  ~ProcessGroupCollplan() override;

  const std::string getBackendName() const override { return "collplan"; }
  /// The cpu-shm job this group runs on (its /dev/shm segments are named after it); "" on mpi.
  const std::string &jobName() const { return group_.job.name; }
  /// "cpu-shm" or "mpi".
  const std::string &transport() const { return group_.transport; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &tensors,
                                           const c10d::BroadcastOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
                                           const c10d::AllreduceOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &tensors,
                                        const c10d::ReduceOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &outputs,
                                           std::vector<at::Tensor> &inputs,
                                           const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
                                                 const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &outputs,
                                        std::vector<at::Tensor> &inputs,
                                        const c10d::GatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &outputs,
                                         std::vector<std::vector<at::Tensor>> &inputs,
                                         const c10d::ScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &outputs,
                                                std::vector<std::vector<at::Tensor>> &inputs,
                                                const c10d::ReduceScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor &output, at::Tensor &input, const c10d::ReduceScatterOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
                                               std::vector<int64_t> &outputSplits,
                                               std::vector<int64_t> &inputSplits,
                                               const c10d::AllToAllOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &outputs,
                                          std::vector<at::Tensor> &inputs,
                                          const c10d::AllToAllOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override;

  // Refused with the reason: collplan runs whole collectives on single tensors.
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor> &tensors, const c10d::AllreduceCoalescedOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(
      std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
      const c10d::AllgatherOptions &opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dstRank,
                                      int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int srcRank,
                                      int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors,
                                               int tag) override;

private:
  CallSite site(const char *call) const { return {call, rank_, size_}; }
  /// Queues `body` (which makes the collplan calls of one c10d call) behind the calls issued
  /// before it and returns the Work that its completion finishes.
  c10::intrusive_ptr<c10d::Work> enqueue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                         std::function<void()> body);
  /// One collplan call on this rank's communicator (worker thread); collplan's error (which
  /// names the rank and the reason) is thrown as std::runtime_error naming the c10d call.
  void run(const CallSite &site, const collplan_call_t &call);
  [[noreturn]] void refuse(const char *call, const std::string &reason) const;

  GroupComm group_;  ///< its comm is used by the worker thread only, once constructed
  CallQueue queue_;  ///< last: stopped (its calls drained) before group_ goes
};

/// The creator torch.distributed.Backend.register_backend takes: (store, rank, size, timeout).
/// collplan bounds its own waits (COLLPLAN_TIMEOUT_S), so `timeout` is not used.
c10::intrusive_ptr<ProcessGroupCollplan> createProcessGroupCollplan(
    const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
    const std::chrono::duration<float> &timeout);

}  // namespace collplan::distributed
