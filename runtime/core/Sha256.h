// Sha256: the SHA-256 digest (FIPS 180-4) of a byte string, for content-addressed proof records.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace collplan {

/// The 32-byte SHA-256 digest of `bytes`. A file's proof record is keyed by it (ProofRecord.h):
/// a collision-resistant hash, so no edited file can pass for one that was proven. None of
/// collplan's runtime dependencies (nlohmann/json, pthreads, librt, hwloc) provides one.
std::array<uint8_t, 32> sha256(std::string_view bytes);

/// sha256 without the SHA extensions of x86, which sha256 uses where the processor has them
/// (for tests: both must agree).
std::array<uint8_t, 32> sha256Portable(std::string_view bytes);

/// sha256(bytes) as 64 lowercase hex digits.
std::string sha256Hex(std::string_view bytes);

}  // namespace collplan
