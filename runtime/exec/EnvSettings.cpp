// EnvSettings: strict parsing of integer and duration environment settings.
#include "runtime/exec/EnvSettings.h"

#include "runtime/exec/RuntimeError.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace collplan {
namespace {

[[noreturn]] void malformed(const char *name, const char *expected, const char *text) {
  throw RuntimeError(ErrorCode::InvalidArgument,
                     std::string(name) + " must be " + expected + ", got \"" + text + "\"");
}

/// Whether `text` is digits, an optional fraction and an optional exponent (no sign, no
/// spaces, no hex, no nan or inf).
bool plainDecimal(const char *text) {
  const size_t digits = std::strspn(text, "0123456789");
  const char *p = text + digits;
  size_t fraction = 0;
  if (*p == '.') fraction = std::strspn(++p, "0123456789"), p += fraction;
  if (digits + fraction == 0) return false;
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-') ++p;
    const size_t exponent = std::strspn(p, "0123456789");
    if (exponent == 0) return false;
    p += exponent;
  }
  return *p == '\0';
}

}  // namespace

uint64_t unsignedFromEnv(const char *name, uint64_t fallback, const char *expected,
                         uint64_t max, uint64_t min) {
  const char *text = std::getenv(name);
  if (!text) return fallback;
  char *end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || std::strspn(text, "0123456789") == 0 ||
      value > max || value < min)
    malformed(name, expected, text);
  return value;
}

int64_t timeoutMillisFromEnv(int64_t fallback) {
  const char *name = "COLLPLAN_TIMEOUT_S";
  const char *expected = "a number of seconds from 0.001 to 1000000, or 0 for no limit";
  const char *text = std::getenv(name);
  if (!text) return fallback;
  if (!plainDecimal(text)) malformed(name, expected, text);
  const double seconds = std::strtod(text, nullptr);
  if (seconds == 0 && std::strspn(text, "0.") == std::strcspn(text, "eE")) return 0;
  if (!std::isfinite(seconds) || seconds < kMinTimeoutSeconds || seconds > kMaxTimeoutSeconds)
    malformed(name, expected, text);
  return int64_t(std::llround(seconds * 1000));
}

}  // namespace collplan
