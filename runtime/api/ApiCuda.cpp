// collplan_cuda.h: device calls on CUDA streams, and the group brackets that check them.
#include "collplan_cuda.h"

#include "runtime/api/ApiHandles.h"
#include "runtime/exec/RuntimeError.h"

#include <vector>

namespace {

using collplan::ErrorCode;
using collplan::RuntimeError;

/// This thread's open groups and the communicators it called in them.
thread_local int groupDepth = 0;
thread_local std::vector<collplan_comm_t> groupComms;

}  // namespace

extern "C" {

collplan_status_t collplan_cuda_call(collplan_comm_t comm, const collplan_call_t *call,
                                     cudaStream_t stream) {
  return collplan::api::guardedCall("collplan_cuda_call", [&] {
    collplan::api::withCommunicator(comm, [&](collplan::Communicator &communicator) {
      if (!call) throw RuntimeError(ErrorCode::NullPointer, "call is NULL");
      communicator.enqueue(collplan::api::callRequest(*call), stream);
    });
    if (groupDepth > 0) groupComms.push_back(comm);
  });
}

collplan_status_t collplan_group_start(void) {
  ++groupDepth;
  return COLLPLAN_SUCCESS;
}

collplan_status_t collplan_group_end(void) {
  return collplan::api::guardedCall("collplan_group_end", [&] {
    if (groupDepth == 0)
      throw RuntimeError(ErrorCode::InvalidArgument, "no group is open (collplan_group_start)");
    if (--groupDepth > 0) return;
    std::vector<collplan_comm_t> called;
    called.swap(groupComms);
    for (collplan_comm_t comm : called)
      if (collplan::api::isLive(comm))
        collplan::api::withCommunicator(comm, [](collplan::Communicator &communicator) {
          communicator.world().deviceCalls()->checkComplete();
        });
  });
}

collplan_status_t collplan_cuda_comm_device(collplan_comm_t comm, int *device) {
  return collplan::api::guardedCall("collplan_cuda_comm_device", [&] {
    collplan::api::withCommunicator(comm, [&](collplan::Communicator &communicator) {
      if (!device) throw RuntimeError(ErrorCode::NullPointer, "device is NULL");
      const collplan::DeviceJob *job = communicator.world().deviceJob();
      if (!job)
        throw RuntimeError(ErrorCode::InvalidArgument,
                           "comm is on backend " +
                               std::string(communicator.world().backend().name()) +
                               ", which runs on no device");
      *device = job->deviceOf(communicator.rank());
    });
  });
}

}  // extern "C"
