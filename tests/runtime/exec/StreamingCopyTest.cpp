// streamingCopy against memmove at every alignment and tail length, overlap, and the executor
// with every plain copy streamed (COLLPLAN_STREAMING_COPY_MIN=0).
#include "ExecTestSupport.h"

#include "runtime/core/StreamingCopy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

using namespace collplan;
using namespace collplan::test;

namespace {

std::vector<unsigned char> pattern(size_t bytes) {
  std::vector<unsigned char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>(i * 131 + 7);
  return v;
}

TEST(StreamingCopy, EqualsMemcpyAtEveryAlignmentAndTail) {
  const std::vector<unsigned char> src = pattern((size_t(1) << 20) + 256);
  for (size_t bytes : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(255), size_t(256),
                       size_t(257), size_t(4096 + 13), size_t(1) << 20})
    for (size_t srcOffset : {0, 1, 8, 63})
      for (size_t dstOffset : {0, 3, 16, 60}) {
        std::vector<unsigned char> dst(bytes + 256, 0xEE), expected(bytes + 256, 0xEE);
        std::memcpy(expected.data() + dstOffset, src.data() + srcOffset, bytes);
        streamingCopy(dst.data() + dstOffset, src.data() + srcOffset, bytes);
        ASSERT_EQ(dst, expected) << bytes << " bytes, src +" << srcOffset << ", dst +" << dstOffset;
      }
}

TEST(StreamingCopy, OverlappingRangesBehaveAsMemmove) {
  for (ptrdiff_t shift : {-5, 5, 64, -64}) {
    std::vector<unsigned char> buffer = pattern(8192), expected = buffer;
    unsigned char *src = buffer.data() + 1024, *dst = src + shift;
    std::memmove(expected.data() + 1024 + shift, expected.data() + 1024, 4096);
    streamingCopy(dst, src, 4096);
    EXPECT_EQ(buffer, expected) << "shift " << shift;
  }
}

/// Every plain copy of every plan streams when the threshold is 0: the results stay exact.
TEST(StreamingCopy, ExecutorResultsWithEveryCopyStreamed) {
  setenv("COLLPLAN_STREAMING_COPY_MIN", "0", 1);
  setenv("COLLPLAN_TIMEOUT_S", "30", 1);
  for (int ranks : {2, 3}) {
    World world = World::threads(ranks);
    std::vector<std::string> failures(static_cast<size_t>(ranks));
    world.runThreads([&](Comm &comm) {
      for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::AllReduce,
                                  CollectiveKind::Broadcast, CollectiveKind::AllToAll})
        for (const CollCase &c : sweepCases(kind, ranks)) {
          const std::string error = runAndCheck(comm, c);
          if (!error.empty()) {
            failures[size_t(comm.rank())] = error;
            return;
          }
        }
    });
    for (size_t r = 0; r < failures.size(); ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
  }
  unsetenv("COLLPLAN_STREAMING_COPY_MIN");
}

}  // namespace
