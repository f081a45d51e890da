// CrossMemory: process_vm_readv with partial-transfer handling; the single-copy settings.
#include "runtime/backends/cpu/CrossMemory.h"

#include "runtime/exec/EnvSettings.h"

#include <cerrno>
#include <sys/uio.h>

namespace collplan {

int crossMemoryRead(pid_t pid, uint64_t remote, std::byte *dst, size_t bytes) {
  while (bytes > 0) {
    iovec local{dst, bytes};
    iovec source{reinterpret_cast<void *>(uintptr_t(remote)), bytes};
    const ssize_t got = process_vm_readv(pid, &local, 1, &source, 1, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (got == 0) return EFAULT;  // nothing readable at the remote address
    dst += got;
    remote += uint64_t(got);
    bytes -= size_t(got);
  }
  return 0;
}

SingleCopySettings SingleCopySettings::fromEnvironment() {
  SingleCopySettings s;
  s.enabled = unsignedFromEnv("COLLPLAN_SHM_SINGLE_COPY", 1, "0 or 1", 1) == 1;
  s.minBytes = size_t(unsignedFromEnv("COLLPLAN_SHM_SINGLE_COPY_MIN", s.minBytes,
                                      "a number of bytes (digits only)"));
  return s;
}

}  // namespace collplan
