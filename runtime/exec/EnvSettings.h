// EnvSettings: runtime tunables read from COLLPLAN_* environment variables, validated.
#pragma once

#include <cstdint>

namespace collplan {

/// The non-negative integer in environment variable `name`, or `fallback` when it is unset.
/// Throws RuntimeError(InvalidArgument) "NAME must be <expected>, got "TEXT"" otherwise.
uint64_t unsignedFromEnv(const char *name, uint64_t fallback, const char *expected);

}  // namespace collplan
