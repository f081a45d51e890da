// ProcessLiveness: whether a process a cpu-shm job recorded is still running, pid reuse aside.
#pragma once

#include <cstdint>

namespace collplan {

/// A process as peers record it: a pid alone could be reused by an unrelated process.
struct ProcessId {
  int64_t pid = 0;
  uint64_t startTime = 0;     ///< clock ticks after boot (/proc/<pid>/stat); 0: unknown
  uint64_t pidNamespace = 0;  ///< inode of /proc/self/ns/pid; 0: unknown
};

/// This process: its pid, its start time and its PID namespace.
ProcessId thisProcess();

enum class Liveness {
  Alive,
  Dead,     ///< exited, a zombie, or its pid now names a process that started at another time
  Unknown,  ///< in another PID namespace (or /proc cannot tell): its pid means nothing here
};

/// Reads /proc/<pid>/stat (state and start time); falls back to kill(pid, 0) when /proc has no
/// answer. A few microseconds: cheap enough to ask every 100 ms while waiting. A process whose
/// PID namespace is unknown (its record is not complete yet) is looked up in ours.
Liveness livenessOf(const ProcessId &process);

}  // namespace collplan
