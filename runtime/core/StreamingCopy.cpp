// streamingCopy: SSE2 non-temporal stores 64 bytes at a time, memmove elsewhere.
#include "runtime/core/StreamingCopy.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace collplan {

void streamingCopy(void *dst, const void *src, size_t bytes) {
  auto *d = static_cast<unsigned char *>(dst);
  const auto *s = static_cast<const unsigned char *>(src);
  const bool overlap = d < s + bytes && s < d + bytes;
#if defined(__SSE2__)
  if (!overlap && bytes >= 256) {
    // Head: bring the destination to a 64-byte boundary so every streamed line is whole.
    const size_t head = (64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63;
    std::memcpy(d, s, head);
    d += head;
    s += head;
    size_t left = bytes - head;
    for (; left >= 64; left -= 64, d += 64, s += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + 48));
      _mm_stream_si128(reinterpret_cast<__m128i *>(d), a);
      _mm_stream_si128(reinterpret_cast<__m128i *>(d + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i *>(d + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i *>(d + 48), e);
    }
    // Streaming stores are weakly ordered: fence before a flag store may publish the data.
    _mm_sfence();
    std::memcpy(d, s, left);
    return;
  }
#endif
  (void)overlap;
  std::memmove(dst, src, bytes);
}

}  // namespace collplan
