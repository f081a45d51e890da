// EnvSettings: runtime tunables read from COLLPLAN_* environment variables, validated.
#pragma once

#include <cstdint>

namespace collplan {

/// The integer in [min, max] in environment variable `name` (decimal digits only), or
/// `fallback` when it is unset. Throws RuntimeError(InvalidArgument) "NAME must be <expected>,
/// got "TEXT"" otherwise; `expected` states the range, e.g. "a number of polls from 0 to
/// 1000000".
uint64_t unsignedFromEnv(const char *name, uint64_t fallback, const char *expected,
                         uint64_t max = UINT64_MAX, uint64_t min = 0);

/// The longest COLLPLAN_TIMEOUT_S: 10^6 s (11.6 days); more is a typo, and would overflow
/// the clock arithmetic of a wait.
inline constexpr double kMaxTimeoutSeconds = 1e6;
/// The shortest: 1 ms, the resolution of a wait's timeout.
inline constexpr double kMinTimeoutSeconds = 1e-3;

/// COLLPLAN_TIMEOUT_S in milliseconds: a decimal number of seconds from 0.001 to 1000000, or 0
/// for no limit; `fallback` when unset. Anything else (nan, inf, -0, 1e-300, 1e300, hex, a
/// sign, spaces) throws RuntimeError(InvalidArgument) naming the variable and the range.
int64_t timeoutMillisFromEnv(int64_t fallback);

}  // namespace collplan
