// memcpy against collplan::streamingCopy in the two-rank allgather pattern (Google Benchmark).
//   collplan_bench_copy --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Two threads (one per core on the reference machine); each copies its own block and its peer's
// block of `bytes` into its private output of 2 x bytes, as a two-rank allgather does. The size at
// which streaming starts to win is runtime/core/StreamingCopy.h's kDefaultStreamingCopyMinBytes.
#include "runtime/core/StreamingCopy.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <vector>

namespace {

struct Blocks {
  std::vector<char> in[2], out[2];
  explicit Blocks(size_t bytes) {
    for (int r = 0; r < 2; ++r) {
      in[r].assign(bytes, char(r + 1));
      out[r].assign(2 * bytes, 0);
    }
  }
};

/// The buffers of the running size, made by Setup before the two threads start.
std::unique_ptr<Blocks> blocks;

void makeBlocks(const benchmark::State &state) {
  blocks = std::make_unique<Blocks>(size_t(state.range(0)));
}
void freeBlocks(const benchmark::State &) { blocks.reset(); }

template <bool Streaming>
void allgatherCopy(benchmark::State &state) {
  const size_t bytes = size_t(state.range(0));
  const int rank = state.thread_index() % 2, peer = 1 - rank;
  for (auto _ : state) {
    char *out = blocks->out[rank].data();
    const char *mine = blocks->in[rank].data(), *theirs = blocks->in[peer].data();
    if (Streaming) {
      collplan::streamingCopy(out + size_t(rank) * bytes, mine, bytes);
      collplan::streamingCopy(out + size_t(peer) * bytes, theirs, bytes);
    } else {
      std::memcpy(out + size_t(rank) * bytes, mine, bytes);
      std::memcpy(out + size_t(peer) * bytes, theirs, bytes);
    }
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(2 * bytes));
}

void sizes(benchmark::internal::Benchmark *b) {
  b->RangeMultiplier(2)->Range(1 << 20, 64 << 20)->Threads(2)->UseRealTime()->Unit(
      benchmark::kMicrosecond);
  b->Setup(makeBlocks)->Teardown(freeBlocks);
}

BENCHMARK(allgatherCopy<false>)->Name("allgather_copy/memcpy")->Apply(sizes);
BENCHMARK(allgatherCopy<true>)->Name("allgather_copy/streaming")->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
