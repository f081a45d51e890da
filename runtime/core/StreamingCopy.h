// Large copies written with non-temporal (streaming) stores, which bypass the cache.
#pragma once

#include <cstddef>

namespace collplan {

/// Copies `bytes` from `src` to `dst` (non-overlapping) with stores that go straight to memory
/// instead of first reading every destination line into the cache (write-allocate) and later
/// evicting it. For a copy much larger than the cache this moves a third less data through the
/// memory bus (no write-allocate read) and does not evict the cache's other contents; for a copy
/// that fits in cache it is slower than memcpy, whose destination stays cached for the next op.
/// Overlapping ranges, and targets without SSE2, fall back to memmove.
void streamingCopy(void *dst, const void *src, size_t bytes);

/// The copy size from which the executor streams by default: the size above which streaming was
/// faster on the reference machine (bench/runtime/streaming_copy.c, bench/RESULTS.md); the
/// COLLPLAN_STREAMING_COPY_MIN environment variable overrides it.
inline constexpr size_t kDefaultStreamingCopyMinBytes = size_t(16) << 20;

}  // namespace collplan
