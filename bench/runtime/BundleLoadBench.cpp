// Loading a bundle: every rank's programs (proven, and not) against one rank's (what a process
// of a job loads, which cannot be proven alone), from JSON and from CBOR. Usage: collplan_bench_bundle_load BUNDLE [benchmark flags]
// (default: plans/bundles/trn2/bundle.json of the source tree).
#include "runtime/plan/BundleJson.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>

using namespace collplan;

namespace {

std::string jsonPath, cborPath;

void loadBundle(benchmark::State &state, const std::string &path, int onlyRank,
                bool verify = true) {
  PlanLoadOptions options;
  options.onlyRank = onlyRank;
  options.verify = verify;
  size_t programs = 0;
  for (auto _ : state) {
    Bundle bundle = loadBundleFile(path, {}, options);
    programs += bundle.tables.size();
    benchmark::DoNotOptimize(bundle);
  }
  state.counters["file_bytes"] = double(std::filesystem::file_size(path));
  benchmark::DoNotOptimize(programs);
}

void BM_JsonEveryRank(benchmark::State &state) { loadBundle(state, jsonPath, -1); }
void BM_JsonEveryRankUnproven(benchmark::State &state) { loadBundle(state, jsonPath, -1, false); }
void BM_JsonOneRank(benchmark::State &state) { loadBundle(state, jsonPath, 0); }
void BM_CborEveryRank(benchmark::State &state) { loadBundle(state, cborPath, -1); }
void BM_CborOneRank(benchmark::State &state) { loadBundle(state, cborPath, 0); }

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  jsonPath = argc > 1 ? argv[1] : COLLPLAN_SOURCE_DIR "/plans/bundles/trn2/bundle.json";
  // The same bundle in CBOR, written next to the temp dir for the CBOR cases.
  cborPath = (std::filesystem::temp_directory_path() / "collplan-bench-bundle.cbor").string();
  try {
    saveBundleFile(loadBundleFile(jsonPath), cborPath, DocumentEncoding::Cbor);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collplan_bench_bundle_load: %s\n", e.what());
    return 1;
  }
  benchmark::RegisterBenchmark("BundleLoad/json/every_rank", BM_JsonEveryRank)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BundleLoad/json/every_rank_unproven", BM_JsonEveryRankUnproven)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BundleLoad/json/one_rank", BM_JsonOneRank)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BundleLoad/cbor/every_rank", BM_CborEveryRank)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BundleLoad/cbor/one_rank", BM_CborOneRank)
      ->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  std::filesystem::remove(cborPath);
  return 0;
}
