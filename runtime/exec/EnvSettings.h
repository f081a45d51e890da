// EnvSettings: runtime tunables read from COLLPLAN_* environment variables, validated.
#pragma once

#include <cstdint>

namespace collplan {

/// The integer in [0, max] in environment variable `name`, or `fallback` when it is unset.
/// Throws RuntimeError(InvalidArgument) "NAME must be <expected>, got "TEXT"" otherwise.
uint64_t unsignedFromEnv(const char *name, uint64_t fallback, const char *expected,
                         uint64_t max = UINT64_MAX);

}  // namespace collplan
