// RuntimeError: the exception the executor, backends and communicator throw; the C API maps its code.
#pragma once

#include <stdexcept>
#include <string>

namespace collplan {

/// Error categories; the C API's collplan_status_t uses the same numbers.
enum class ErrorCode : int {
  InvalidArgument = 1,  ///< a bad value: unknown dtype/op/backend, root out of range, ...
  NullPointer = 2,      ///< a required pointer is NULL
  BufferTooSmall = 3,   ///< a buffer's stated size is below what the call needs
  MisalignedBuffer = 4, ///< a buffer is not aligned to its dtype's size
  Unsupported = 5,      ///< valid request this build or backend cannot serve
  File = 6,             ///< a topology or bundle file could not be loaded
  Plan = 7,             ///< a plan cannot run on this communicator
  System = 8,           ///< an operating-system call failed (shared memory, threads)
  Timeout = 9,          ///< a peer did not answer within the communicator's timeout
  Internal = 10,        ///< a broken invariant: a bug in collplan
};

class RuntimeError : public std::runtime_error {
public:
  RuntimeError(ErrorCode code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

private:
  ErrorCode code_;
};

}  // namespace collplan
