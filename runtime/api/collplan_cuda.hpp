// collplan_cuda.hpp: the C++ API of device calls (collplan_cuda.h) over collplan.hpp.
#pragma once

#include "collplan.hpp"
#include "collplan_cuda.h"

namespace collplan {

/// Enqueues `call` for `comm`'s rank on `stream` (collplan_cuda_call). Throws Error.
inline void cudaCall(const Comm &comm, const collplan_call_t &call, cudaStream_t stream) {
  check(collplan_cuda_call(comm.get(), &call, stream));
}

/// The CUDA device of `comm`'s rank. Throws Error.
inline int cudaDevice(const Comm &comm) {
  int device = 0;
  check(collplan_cuda_comm_device(comm.get(), &device));
  return device;
}

/// collplan_group_start for its scope; end() checks the group (throws Error), the destructor
/// closes a group not yet ended without throwing.
class Group {
public:
  Group() { check(collplan_group_start()); }
  ~Group() {
    if (open_) collplan_group_end();
  }
  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;
  void end() {
    open_ = false;
    check(collplan_group_end());
  }

private:
  bool open_ = true;
};

}  // namespace collplan
