// The 16-byte vectorised copy kernel that collplan-copy-roofline times, its fill and its checker.
#include "bench/gpu/CopyKernel.h"

#include <algorithm>
#include <cstdint>

namespace collplan::gpubench {
namespace {

constexpr int kThreads = 512;  ///< as the plan kernel's blocks
constexpr int kUnroll = 4;     ///< 16-byte loads in flight per thread before their stores

/// Grid-stride copy: each thread loads kUnroll uint4 before storing them, then the remaining
/// whole uint4, then the tail bytes.
__global__ void vectorCopy(char *dst, const char *src, size_t bytes) {
  const size_t vectors = bytes / sizeof(uint4);
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 *in = reinterpret_cast<const uint4 *>(src);
  uint4 *out = reinterpret_cast<uint4 *>(dst);
  size_t v = first;
  for (; v + (kUnroll - 1) * stride < vectors; v += kUnroll * stride) {
    uint4 held[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) held[k] = in[v + k * stride];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) out[v + k * stride] = held[k];
  }
  for (; v < vectors; v += stride) out[v] = in[v];
  for (size_t b = vectors * sizeof(uint4) + first; b < bytes; b += stride) dst[b] = src[b];
}

__global__ void fillPattern(unsigned char *dst, size_t bytes) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride)
    dst[i] = static_cast<unsigned char>((i * 131u + (i >> 8) * 7u + 1u) & 0xffu);
}

__global__ void countMismatches(const unsigned char *a, const unsigned char *b, size_t bytes,
                                unsigned long long *mismatches) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes; i += stride)
    local += a[i] != b[i];
  if (local) atomicAdd(mismatches, local);
}

__global__ void empty() {}

__global__ void gridBarrier(unsigned long long *counter) {
  if (threadIdx.x == 0) {
    const unsigned long long blocks = gridDim.x;
    unsigned long long arrived;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;"
                 : "=l"(arrived) : "l"(counter) : "memory");
    const unsigned long long all = (arrived / blocks + 1) * blocks;
    unsigned long long seen = 0;
    do {
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(seen) : "l"(counter) : "memory");
    } while (seen < all);
  }
  __syncthreads();
}

/// Blocks for `work` items of kThreads each: enough to cover them, at most what the device holds
/// resident at once for `kernel` (a grid-stride loop does the rest).
template <typename Kernel>
unsigned gridFor(Kernel kernel, size_t work) {
  int device = 0, sms = 1, perSm = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0);
  const size_t wanted = work / kThreads + (work % kThreads != 0);
  return unsigned(std::max<size_t>(1, std::min<size_t>(wanted, size_t(sms) * std::max(perSm, 1))));
}

}  // namespace

cudaError_t launchVectorCopy(void *dst, const void *src, size_t bytes, cudaStream_t stream) {
  static const unsigned maxGrid = gridFor(vectorCopy, SIZE_MAX);  // the query once, not per call
  const size_t work = std::max<size_t>(1, bytes / sizeof(uint4));
  const size_t wanted = work / kThreads + (work % kThreads != 0);
  const unsigned grid = unsigned(std::min<size_t>(maxGrid, wanted));
  vectorCopy<<<grid, kThreads, 0, stream>>>(static_cast<char *>(dst),
                                            static_cast<const char *>(src), bytes);
  return cudaGetLastError();
}

cudaError_t launchFillPattern(void *dst, size_t bytes, cudaStream_t stream) {
  fillPattern<<<gridFor(fillPattern, bytes), kThreads, 0, stream>>>(
      static_cast<unsigned char *>(dst), bytes);
  return cudaGetLastError();
}

cudaError_t launchCountMismatches(const void *a, const void *b, size_t bytes,
                                  unsigned long long *mismatches, cudaStream_t stream) {
  countMismatches<<<gridFor(countMismatches, bytes), kThreads, 0, stream>>>(
      static_cast<const unsigned char *>(a), static_cast<const unsigned char *>(b), bytes,
      mismatches);
  return cudaGetLastError();
}

cudaError_t launchEmpty(cudaStream_t stream) {
  empty<<<1, kThreads, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launchGridBarrier(unsigned blocks, unsigned long long *counter, cudaStream_t stream) {
  gridBarrier<<<blocks, kThreads, 0, stream>>>(counter);
  return cudaGetLastError();
}

}  // namespace collplan::gpubench
