// CrossMemory: single-copy reads from another process's memory (Linux cross-memory attach).
#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/types.h>

namespace collplan {

/// Copies `bytes` at address `remote` of process `pid` to `dst` with process_vm_readv (one
/// kernel copy, no shared mapping needed: what Open MPI's "CMA" single-copy path uses). Needs
/// ptrace-level access to `pid` (same user, no Yama/seccomp restriction). Returns 0 or errno.
int crossMemoryRead(pid_t pid, uint64_t remote, std::byte *dst, size_t bytes);

/// How cpu-shm moves values it can publish in place, from the environment:
///   COLLPLAN_SHM_SINGLE_COPY=0|1           (default 1) publish large values in place, the
///                                          receiver copying them out with crossMemoryRead;
///   COLLPLAN_SHM_SINGLE_COPY_MIN=BYTES     (default 16384) smaller values are staged, since a
///                                          system call per fetch costs more than a copy.
/// Throws RuntimeError(InvalidArgument) naming the variable when a value is malformed.
struct SingleCopySettings {
  bool enabled = true;
  size_t minBytes = size_t(16) << 10;
  static SingleCopySettings fromEnvironment();
};

}  // namespace collplan
