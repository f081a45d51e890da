// EnvSettings: strict parsing of integer environment settings.
#include "runtime/exec/EnvSettings.h"

#include "runtime/exec/RuntimeError.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace collplan {

uint64_t unsignedFromEnv(const char *name, uint64_t fallback, const char *expected,
                         uint64_t max) {
  const char *text = std::getenv(name);
  if (!text) return fallback;
  char *end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || text[0] == '-' || text[0] == '+' ||
      text[0] == ' ' || value > max)
    throw RuntimeError(ErrorCode::InvalidArgument, std::string(name) + " must be " + expected +
                                                       ", got \"" + text + "\"");
  return value;
}

}  // namespace collplan
