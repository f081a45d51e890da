// The Python Communicator: one rank of a cpu-threads or cpu-shm world, collectives on NumPy.
#pragma once

#include "collplan.hpp"

#include <pybind11/pybind11.h>

#include <memory>

namespace collplan::python {

/// A rank's communicator. It keeps its world alive (cpu-shm, from the environment) or borrows
/// it (run_threads, which destroys the world when every rank returned: a Communicator kept
/// past that fails with collplan's "not a live communicator" error, never a crash).
class PyComm {
public:
  PyComm(std::shared_ptr<World> world, Comm comm) : world_(std::move(world)), comm_(std::move(comm)) {}
  /// The live communicator; collplan.Error once its run_threads world has ended.
  collplan_comm_t handle() {
    if (!comm_.get())
      throw Error(COLLPLAN_ERROR_INVALID_ARGUMENT,
                  "this Communicator belonged to a run_threads world that has ended: use it "
                  "only inside the body run_threads calls");
    return comm_.get();
  }
  Comm &comm() {
    handle();
    return comm_;
  }
  /// Drops the communicator before its world (run_threads).
  void release() { comm_ = Comm(); }

private:
  std::shared_ptr<World> world_;
  Comm comm_;
};

/// Registers Communicator, run_threads and the collectives on `m`.
void bindCommunicator(pybind11::module_ &m);

}  // namespace collplan::python
