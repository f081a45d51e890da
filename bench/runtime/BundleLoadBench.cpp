// Loading a bundle: every rank's programs (proven, and not) against one rank's, from JSON and
// CBOR; what a rank of a cpu-shm or mpi job loads (its own programs of a proven file, with the
// proof record present, and the first load that proves it); and the parse alone, through
// nlohmann's callback parser (what loaders used before) and the bounded one (JsonDocument.h),
// on the bundle and on a plan with one channel of 20 000 ops; and one rank's load of a 1024-rank
// ring allreduce plan stored explicitly (every rank's program) against stored symmetric (rank 0's
// program, instantiated for the rank).
// Usage: collplan_bench_bundle_load BUNDLE [benchmark flags]
// (default: plans/bundles/trn2/bundle.json of the source tree).
#include "runtime/core/Files.h"
#include "tests/runtime/plan/ManyOpsPlan.h"
#include "runtime/core/JsonDocument.h"
#include "runtime/core/Sha256.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/Composition.h"
#include "runtime/plan/DefaultPlans.h"
#include "runtime/plan/Symmetry.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <malloc.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace collplan;

namespace {

std::string jsonPath, cborPath, proofDir;
/// The 1024-rank ring allreduce, every rank's program, and symmetric.
std::string ringExplicitPath, ringSymmetricPath, composedPath, composedGatherPath;
constexpr int kRingRanks = 1024;

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

/// A rank's load (loadBundleFileForRank): `recorded` with the file's proof record present (every
/// load after the first), else with no usable record directory (every load proves the file).
void loadForRank(benchmark::State &state, bool recorded) {
  const ProofRecords records(recorded ? proofDir : std::string());
  for (auto _ : state)
    benchmark::DoNotOptimize(
        loadBundleFileForRank(jsonPath, {}, 0, records, std::chrono::seconds(60)));
}
void BM_RankProvenRecord(benchmark::State &state) { loadForRank(state, true); }
void BM_RankFirstProof(benchmark::State &state) { loadForRank(state, false); }

/// One rank's load of a plan file (rank 513: neither end of the programs list).
void loadPlanRank(benchmark::State &state, const std::string &path) {
  PlanLoadOptions options;
  options.onlyRank = kRingRanks / 2 + 1;
  for (auto _ : state) benchmark::DoNotOptimize(loadPlanFile(path, options));
  state.counters["file_bytes"] = double(std::filesystem::file_size(path));
}
void BM_RingExplicitOneRank(benchmark::State &state) { loadPlanRank(state, ringExplicitPath); }
void BM_RingSymmetricOneRank(benchmark::State &state) { loadPlanRank(state, ringSymmetricPath); }
/// Every rank's programs instantiated, validated and proven: what proving the file costs.
void BM_RingSymmetricEveryRank(benchmark::State &state) {
  for (auto _ : state) benchmark::DoNotOptimize(loadPlanFile(ringSymmetricPath));
}

/// One rank's load of a composed plan of 16 384 ranks, 256 nodes of 64 (rank 8 257: local rank 1
/// of node 129), stored as its symmetric stages: a hierarchical allreduce, or an allgather (whose
/// rank also copies each of the 16 384 blocks into place).
void BM_ComposedOneRank(benchmark::State &state, const std::string *path) {
  PlanLoadOptions options;
  options.onlyRank = 129 * 64 + 1;
  for (auto _ : state) benchmark::DoNotOptimize(loadPlanFile(*path, options));
  state.counters["file_bytes"] = double(std::filesystem::file_size(*path));
}

/// Writes the composed 16 384-rank plan: ring reduce-scatter and allgather inside the nodes,
/// recursive doubling across them, each stage stored as rank 0's program.
void writeComposedPlan(const std::filesystem::path &temp) {
  composedPath = (temp / "collplan-bench-composed.plan.json").string();
  auto symmetric = [](Plan plan) {
    plan.symmetry = findSymmetry(plan);
    return plan;
  };
  const HierarchicalStages stages =
      allReduceStages(64, symmetric(ringReduceScatterPlan(64, ReduceOp::Sum)),
                      symmetric(recursiveDoublingAllReducePlan(256, ReduceOp::Sum)),
                      symmetric(ringAllGatherPlan(64)));
  savePlanFile(composeHierarchical(stages, 16384), composedPath);
  // Every rank's allgather program holds 16 384 copies: the plan is built for rank 0 alone and
  // saved as its stages.
  composedGatherPath = (temp / "collplan-bench-composed-allgather.plan.json").string();
  const HierarchicalStages gather =
      allGatherStages(64, symmetric(ringAllGatherPlan(256)), symmetric(ringAllGatherPlan(64)));
  savePlanFile(composeHierarchical(gather, 16384, 0), composedGatherPath);
}

/// Writes the ring plan both ways.
void writeRingPlans(const std::filesystem::path &temp) {
  ringExplicitPath = (temp / "collplan-bench-ring-explicit.plan.json").string();
  ringSymmetricPath = (temp / "collplan-bench-ring-symmetric.plan.json").string();
  Plan ring = ringAllReducePlan(kRingRanks, ReduceOp::Sum);
  savePlanFile(ring, ringExplicitPath);
  ring.symmetry = findSymmetry(ring);
  if (!ring.symmetry) throw std::runtime_error("the built-in ring allreduce is not symmetric");
  savePlanFile(ring, ringSymmetricPath);
}

/// The "channels" of programs[0] only, as the loaders keep for rank 0, with nlohmann's
/// callback parser (which scans the parent container after every object it discards).
bool keepRankZero(int depth, nlohmann::json::parse_event_t event, nlohmann::json &parsed,
                  std::vector<std::string> &keys, int &programsDepth, int &index) {
  using E = nlohmann::json::parse_event_t;
  const size_t d = size_t(depth);
  if (event == E::key) {
    if (keys.size() <= d) keys.resize(d + 1);
    keys[d] = parsed.get<std::string>();
    return !(programsDepth >= 0 && depth == programsDepth + 2 && keys[d] == "channels" &&
             index != 0);
  }
  if (event == E::array_start && d < keys.size() && keys[d] == "programs") {
    programsDepth = depth;
    index = -1;
  }
  if (event == E::object_start && programsDepth >= 0 && depth == programsDepth + 1) ++index;
  if (event == E::array_end && depth == programsDepth) programsDepth = -1;
  return true;
}

void parseWithCallback(benchmark::State &state, const std::string &bytes) {
  for (auto _ : state) {
    std::vector<std::string> keys;
    int programsDepth = -1, index = -1;
    nlohmann::json doc = nlohmann::json::parse(
        bytes, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
          return keepRankZero(depth, event, parsed, keys, programsDepth, index);
        });
    benchmark::DoNotOptimize(doc);
  }
}

/// A rank's load as it was before proof records: nlohmann's callback parser keeping rank 0's
/// programs, then rank 0's validation, no proof.
void BM_RankBefore(benchmark::State &state) {
  PlanLoadOptions only;
  only.onlyRank = 0;
  for (auto _ : state) {
    std::vector<std::string> keys;
    int programsDepth = -1, index = -1;
    const nlohmann::json doc = nlohmann::json::parse(
        readWholeFile(jsonPath),
        [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
          return keepRankZero(depth, event, parsed, keys, programsDepth, index);
        });
    benchmark::DoNotOptimize(bundleFromJson(doc, jsonPath, {}, only));
  }
}

void parseBounded(benchmark::State &state, const std::string &bytes) {
  const JsonMemberFilter keep = [](const std::vector<JsonStep> &path, const std::string &key) {
    const size_t n = path.size();
    return !(key == "channels" && n >= 2 && path[n - 1].inArray && path[n - 1].index != 0 &&
             path[n - 2].key == "programs");
  };
  for (auto _ : state) benchmark::DoNotOptimize(parseJsonDocument(bytes, false, keep));
}

void registerAll() {
  auto add = [](const char *name, void (*fn)(benchmark::State &)) {
    benchmark::RegisterBenchmark(name, fn)->Unit(benchmark::kMillisecond);
  };
  add("BundleLoad/json/every_rank", BM_JsonEveryRank);
  add("BundleLoad/json/every_rank_unproven", BM_JsonEveryRankUnproven);
  add("BundleLoad/json/one_rank", BM_JsonOneRank);
  add("BundleLoad/json/rank_before", BM_RankBefore);
  add("BundleLoad/json/rank_proven_record", BM_RankProvenRecord);
  add("BundleLoad/json/rank_first_proof", BM_RankFirstProof);
  add("BundleLoad/cbor/every_rank", BM_CborEveryRank);
  add("BundleLoad/cbor/one_rank", BM_CborOneRank);
  add("PlanLoad/ring1024/explicit/one_rank", BM_RingExplicitOneRank);
  add("PlanLoad/ring1024/symmetric/one_rank", BM_RingSymmetricOneRank);
  add("PlanLoad/ring1024/symmetric/every_rank_proven", BM_RingSymmetricEveryRank);
  benchmark::RegisterBenchmark("PlanLoad/hierarchical16384/composed/one_rank", BM_ComposedOneRank,
                               &composedPath)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("PlanLoad/hierarchical_allgather16384/composed/one_rank",
                               BM_ComposedOneRank, &composedGatherPath)
      ->Unit(benchmark::kMillisecond);
  static const std::string bundle = readWholeFile(jsonPath),
                           many = test::broadcastOfManyOps(20000);
  benchmark::RegisterBenchmark("Sha256/bundle", [](benchmark::State &state) {
    for (auto _ : state) benchmark::DoNotOptimize(sha256(bundle));
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bundle.size()));
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Parse/bundle/callback_parser", parseWithCallback, bundle)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Parse/bundle/bounded_parser", parseBounded, bundle)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Parse/20k_op_channel/callback_parser", parseWithCallback, many)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Parse/20k_op_channel/bounded_parser", parseBounded, many)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  jsonPath = argc > 1 ? argv[1] : COLLPLAN_SOURCE_DIR "/plans/bundles/trn2/bundle.json";
  const std::filesystem::path temp = std::filesystem::temp_directory_path();
  // The same bundle in CBOR, and a proof record of it in a directory of this run's own.
  cborPath = (temp / "collplan-bench-bundle.cbor").string();
  proofDir = (temp / ("collplan-bench-proofs-" + std::to_string(getpid()))).string();
  try {
    saveBundleFile(loadBundleFile(jsonPath), cborPath, DocumentEncoding::Cbor);
    loadBundleFileForRank(jsonPath, {}, 0, ProofRecords(proofDir), std::chrono::seconds(60));
    writeRingPlans(temp);
    writeComposedPlan(temp);
    // Hand the set-up's heap (a 2-million-op plan) back, so that the loads below start from a
    // heap like a fresh process's: with it fragmented, a rank's load took twice as long.
    malloc_trim(0);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collplan_bench_bundle_load: %s\n", e.what());
    return 1;
  }
  registerAll();
  benchmark::RunSpecifiedBenchmarks();
  std::filesystem::remove(cborPath);
  std::filesystem::remove(ringExplicitPath);
  std::filesystem::remove(ringSymmetricPath);
  std::filesystem::remove(composedPath);
  std::filesystem::remove(composedGatherPath);
  std::filesystem::remove_all(proofDir);
  return 0;
}
