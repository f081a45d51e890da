// The device side of collplan-copy-roofline: a 16-byte vectorised copy kernel and a checker.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace collplan::gpubench {

/// Copies `bytes` from `src` to `dst` (device pointers, 16-byte aligned) on `stream` with 16-byte
/// loads and stores (bytes past the last whole 16 one by one); returns the launch's status.
cudaError_t launchVectorCopy(void *dst, const void *src, size_t bytes, cudaStream_t stream);

/// Fills `bytes` of `dst` with a pattern whose bytes differ from their neighbours.
cudaError_t launchFillPattern(void *dst, size_t bytes, cudaStream_t stream);

/// Adds to `*mismatches` (device memory) the number of bytes where `a` and `b` differ.
cudaError_t launchCountMismatches(const void *a, const void *b, size_t bytes,
                                  unsigned long long *mismatches, cudaStream_t stream);

/// An empty kernel of one block: the cost of a launch alone.
cudaError_t launchEmpty(cudaStream_t stream);

/// One device-wide barrier: `blocks` blocks of the plan kernel's size each arrive on `counter`
/// (device memory, zero before the first launch; it only grows, so no launch resets it) and wait
/// until every block of the launch has arrived, with device-scope acquire and release.
cudaError_t launchGridBarrier(unsigned blocks, unsigned long long *counter, cudaStream_t stream);

}  // namespace collplan::gpubench
