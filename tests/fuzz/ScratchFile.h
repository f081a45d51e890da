// Hands a fuzz input to a loader that reads files: one scratch file per fuzzing process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace collplan::fuzz {

/// Overwrites this process's scratch file with the `size` bytes at `data` and returns its path.
/// The loaders take paths, so a target goes through the same open/read/parse code as the tools.
/// The file is created in $TMPDIR (else /tmp) on the first call and removed at normal exit.
const std::string &writeScratchFile(const uint8_t *data, size_t size);

/// Aborts with `what` on stderr: a target's verdict that the input exposed a bug (libFuzzer
/// saves the input as a crash).
[[noreturn]] void fail(const std::string &what);

}  // namespace collplan::fuzz
