// ShmJobId: random bytes from getrandom(2), default job names, nonce text and its variable.
#include "runtime/backends/cpu/ShmJobId.h"

#include "runtime/exec/RuntimeError.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>
#include <vector>

namespace collplan {
namespace {

/// Fills `out` from /dev/urandom; false when it cannot be read.
bool readUrandom(unsigned char *out, size_t bytes) {
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::read(fd, out + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  ::close(fd);
  return done == bytes;
}

void randomBytes(unsigned char *out, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::getrandom(out + done, bytes - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      if (readUrandom(out + done, bytes - done)) return;
      throw RuntimeError(ErrorCode::System, std::string("cannot get random bytes for a cpu-shm "
                                                        "job name (getrandom: ") +
                                                std::strerror(err) +
                                                "; /dev/urandom unreadable)");
    }
    done += size_t(n);
  }
}

}  // namespace

std::string randomHex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  randomBytes(raw.data(), bytes);
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  for (unsigned char b : raw) {
    text += kDigits[b >> 4];
    text += kDigits[b & 15];
  }
  return text;
}

std::string defaultJobName(const std::string &prefix) { return prefix + randomHex(8); }

uint64_t newJobNonce() {
  for (;;) {
    const uint64_t nonce = std::strtoull(randomHex(8).c_str(), nullptr, 16);
    if (nonce != 0) return nonce;
  }
}

uint64_t newSegmentId() {
  for (;;) {
    const uint64_t id = newJobNonce() & ((uint64_t(1) << 62) - 1);
    if (id != 0) return id;
  }
}

std::string nonceText(uint64_t nonce) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, nonce >>= 4) text[size_t(i)] = kDigits[nonce & 15];
  return text;
}

uint64_t nonceFromEnvironment(const std::string &job) {
  const char *named = std::getenv("COLLPLAN_SHM_JOB");
  const char *text = std::getenv(kNonceVariable);
  if (!text || !named || job != named) return 0;
  const std::string s = text;
  bool hex = s.size() == 16;
  for (char c : s) hex = hex && std::strchr("0123456789abcdefABCDEF", c) && c != '\0';
  const uint64_t nonce = hex ? std::strtoull(s.c_str(), nullptr, 16) : 0;
  if (nonce == 0)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       std::string(kNonceVariable) +
                           " must be 16 hex digits, not all zero (collplan-shm-launch sets it), "
                           "got \"" + s + "\"");
  return nonce;
}

}  // namespace collplan
