// The C API's handle plumbing, for the entry points of one backend that live in their own file
// (collplan_mpi.h): error handling and communicator handles that own their world.
#pragma once

#include "collplan.h"
#include "runtime/api/Communicator.h"

#include <functional>
#include <memory>

namespace collplan::api {

/// Runs `body`, turning every exception into a status and this thread's last-error message
/// ("function: message"), as every function of collplan.h does.
collplan_status_t guardedCall(const char *function, const std::function<void()> &body);

/// Runs `body` on the communicator of a live handle, which stays in use (collplan_comm_destroy
/// refuses it) until `body` returns. Throws RuntimeError: NullPointer for NULL, InvalidArgument
/// for a handle that is not live.
void withCommunicator(collplan_comm_t comm, const std::function<void(Communicator &)> &body);
/// Whether `comm` is a live handle.
bool isLive(collplan_comm_t comm);
/// collplan_call_t as the communicator takes it.
CallRequest callRequest(const collplan_call_t &call);

/// A live communicator handle for `rank` of `world`, which it owns: collplan_comm_destroy
/// destroys both (a world made for one communicator, such as collplan_comm_create_mpi's).
collplan_comm_t adoptWorld(std::unique_ptr<WorldImpl> world, int rank);

}  // namespace collplan::api
