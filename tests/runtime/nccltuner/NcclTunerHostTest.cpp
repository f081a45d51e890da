// libnccl-tuner-collplan.so dlopened and driven exactly as NCCL drives a tuner plugin: init per
// rank, getCollInfo on an NCCL-like cost table, finalize; no NCCL or GPU needed.
#include "runtime/nccltuner/NcclTunerAbi.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kAlgos = NCCL_NUM_ALGORITHMS_V5;
constexpr int kProtos = NCCL_NUM_PROTOCOLS_V5;
constexpr size_t kRanks = 8;
constexpr size_t kNodes = 2;
const std::string kExample =
    std::string(COLLPLAN_SOURCE_DIR) + "/tests/runtime/nccltuner/data/example.nccl-tuner.json";

/// What the plugin sent to NCCL's logger, one formatted line per call.
std::vector<std::string> gLog;

void captureLog(ncclDebugLogLevel level, unsigned long, const char *, int, const char *fmt, ...) {
  char line[4096];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  gLog.push_back(std::to_string(int(level)) + " " + line);
}

bool logHas(const std::string &text) {
  for (const std::string &line : gLog)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

/// NCCL's cost table for a call: latency + bytes / bandwidth per (algorithm, protocol), with
/// the pairs NCCL cannot use on this system (CollNet, NVLS, NVLS tree; PAT outside allgather
/// and reduce-scatter) at NCCL_ALGO_PROTO_IGNORE, as initCollCostTable and
/// updateCollCostTable leave them.
struct CostTable {
  float cost[kAlgos][kProtos];

  CostTable(ncclFunc_t func, size_t nBytes) {
    const float latency[kProtos] = {6.8f, 14.0f, 8.4f};  // us: LL, LL128, Simple
    const float bandwidth[kProtos] = {9.0f, 92.0f, 120.0f};  // GB/s
    for (int a = 0; a < kAlgos; ++a)
      for (int p = 0; p < kProtos; ++p)
        cost[a][p] =
            latency[p] * (a == NCCL_ALGO_TREE ? 1.5f : 2.0f) + nBytes / (bandwidth[p] * 1e3f);
    for (int a : {NCCL_ALGO_COLLNET_DIRECT, NCCL_ALGO_COLLNET_CHAIN, NCCL_ALGO_NVLS,
                  NCCL_ALGO_NVLS_TREE})
      for (int p = 0; p < kProtos; ++p) cost[a][p] = float(NCCL_ALGO_PROTO_IGNORE);
    if (func != ncclFuncAllGather && func != ncclFuncReduceScatter)
      for (int p = 0; p < kProtos; ++p) cost[NCCL_ALGO_PAT][p] = float(NCCL_ALGO_PROTO_IGNORE);
    cost[NCCL_ALGO_TREE][NCCL_PROTO_LL128] = float(NCCL_ALGO_PROTO_IGNORE);
  }
  float **asNccl() { return reinterpret_cast<float **>(cost); }
  /// The entries that differ from `before`, as "algo/proto=value".
  std::vector<std::string> changesFrom(const CostTable &before) const {
    std::vector<std::string> out;
    for (int a = 0; a < kAlgos; ++a)
      for (int p = 0; p < kProtos; ++p)
        if (cost[a][p] != before.cost[a][p])
          out.push_back(std::to_string(a) + "/" + std::to_string(p) + "=" +
                        std::to_string(cost[a][p]));
    return out;
  }
};

/// One getCollInfo call's outcome.
struct Answer {
  std::vector<std::string> changes;
  int channels;
  bool operator==(const Answer &o) const { return changes == o.changes && channels == o.channels; }
};

/// Sets or clears COLLPLAN_NCCL_TUNER_FILE for one test.
class ScopedChoicesFile {
public:
  explicit ScopedChoicesFile(const std::string *path) {
    if (path) setenv("COLLPLAN_NCCL_TUNER_FILE", path->c_str(), 1);
    else unsetenv("COLLPLAN_NCCL_TUNER_FILE");
  }
  ~ScopedChoicesFile() { unsetenv("COLLPLAN_NCCL_TUNER_FILE"); }
};

class NcclTunerPlugin : public ::testing::Test {
protected:
  void SetUp() override {
    gLog.clear();
    lib_ = dlopen(COLLPLAN_NCCL_TUNER_LIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
    tuner_ = static_cast<const ncclTuner_v6_t *>(dlsym(lib_, NCCL_TUNER_PLUGIN_SYMBOL_V6));
    ASSERT_NE(tuner_, nullptr) << NCCL_TUNER_PLUGIN_SYMBOL_V6 << " is not exported";
  }
  void TearDown() override {
    for (void *ctx : contexts_) EXPECT_EQ(tuner_->finalize(ctx), ncclSuccess);
    if (lib_) dlclose(lib_);
  }

  /// init for every rank of a communicator, as each rank's ncclCommInit does.
  ncclResult_t initRanks(size_t ranks, size_t nodes) {
    for (size_t r = 0; r < ranks; ++r) {
      void *ctx = reinterpret_cast<void *>(0x1);  // NCCL does not clear it first
      ncclNvlDomainInfo_v6_t nvl = {int(nodes), int(ranks / nodes), int(ranks / nodes)};
      ncclTunerConstants_v6_t constants = {};
      const ncclResult_t rc =
          tuner_->init(&ctx, 0x5eed, ranks, nodes, captureLog, &nvl, &constants);
      if (rc != ncclSuccess) {
        EXPECT_EQ(ctx, nullptr) << "a failed init left a context";
        return rc;
      }
      contexts_.push_back(ctx);
    }
    return ncclSuccess;
  }

  /// getCollInfo on rank `rank`'s context, as ncclGetAlgoInfo calls it (nChannels enters as 0).
  Answer ask(size_t rank, ncclFunc_t func, size_t nBytes) {
    const CostTable before(func, nBytes);
    CostTable table = before;
    int channels = 0;
    EXPECT_EQ(tuner_->getCollInfo(contexts_.at(rank), func, nBytes, 1, table.asNccl(), kAlgos,
                                  kProtos, 0, &channels),
              ncclSuccess);
    return {table.changesFrom(before), channels};
  }

  /// ask() on every rank; all must agree, and rank 0's answer is returned.
  Answer askAll(ncclFunc_t func, size_t nBytes) {
    const Answer first = ask(0, func, nBytes);
    for (size_t r = 1; r < contexts_.size(); ++r)
      EXPECT_TRUE(ask(r, func, nBytes) == first) << "rank " << r << " differs, " << nBytes;
    return first;
  }

  /// A choices file with `text`, in the test's temporary directory.
  std::string writeFile(const std::string &name, const std::string &text) {
    const std::string path = ::testing::TempDir() + "nccltuner-" + std::to_string(getpid()) +
                             "-" + name;
    std::ofstream(path) << text;
    return path;
  }

  void *lib_ = nullptr;
  const ncclTuner_v6_t *tuner_ = nullptr;
  std::vector<void *> contexts_;
};

/// "algo/proto=0.000000": the change getCollInfo makes when it picks (algo, proto).
std::string chosen(int algo, int proto) {
  return std::to_string(algo) + "/" + std::to_string(proto) + "=" + std::to_string(0.0f);
}

TEST_F(NcclTunerPlugin, ExportsV6AndV5Tables) {
  EXPECT_STREQ(tuner_->name, "collplan");
  EXPECT_NE(tuner_->getChunkSize, nullptr);
  const auto *v5 = static_cast<const ncclTuner_v5_t *>(dlsym(lib_, NCCL_TUNER_PLUGIN_SYMBOL_V5));
  ASSERT_NE(v5, nullptr);
  EXPECT_EQ(v5->init, tuner_->init);
  EXPECT_EQ(v5->getCollInfo, tuner_->getCollInfo);
  EXPECT_EQ(v5->finalize, tuner_->finalize);
}

TEST_F(NcclTunerPlugin, EveryRankGetsTheRuleForItsSize) {
  ScopedChoicesFile env(&kExample);
  ASSERT_EQ(initRanks(kRanks, kNodes), ncclSuccess);
  EXPECT_TRUE(logHas("5 of 6 rules apply to 8 ranks on 2 nodes")) << gLog.front();
  for (size_t bytes : {size_t(0), size_t(8), size_t(65535)})
    EXPECT_EQ(askAll(ncclFuncAllReduce, bytes),
              (Answer{{chosen(NCCL_ALGO_TREE, NCCL_PROTO_LL)}, 0}));
  for (size_t bytes : {size_t(65536), size_t(1) << 20, size_t(16777215)})
    EXPECT_EQ(askAll(ncclFuncAllReduce, bytes),
              (Answer{{chosen(NCCL_ALGO_RING, NCCL_PROTO_LL128)}, 16}));
  for (size_t bytes : {size_t(16777216), size_t(1) << 30})
    EXPECT_EQ(askAll(ncclFuncAllReduce, bytes),
              (Answer{{chosen(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE)}, 0}));
  EXPECT_EQ(askAll(ncclFuncReduceScatter, 4096),
            (Answer{{chosen(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE)}, 0}));
}

TEST_F(NcclTunerPlugin, NoRuleOrAnIgnoredPairLeavesTheTable) {
  ScopedChoicesFile env(&kExample);
  ASSERT_EQ(initRanks(kRanks, kNodes), ncclSuccess);
  const Answer unchanged{{}, 0};
  EXPECT_EQ(askAll(ncclFuncBroadcast, 1 << 20), unchanged);  // no broadcast rule
  EXPECT_EQ(askAll(ncclFuncReduce, 64), unchanged);
  EXPECT_EQ(askAll(ncclFuncSend, 64), unchanged);
  // allgather's first rule is for 4 ranks; its second asks for NVLS, which the table marks
  // unusable: NCCL's table stays, and so does its channel count.
  EXPECT_EQ(askAll(ncclFuncAllGather, 1 << 20), unchanged);
  EXPECT_TRUE(logHas("allgather of 1048576 bytes: rules[4] -> nvls/simple is not available"));
}

TEST_F(NcclTunerPlugin, ARuleWithoutAProtocolTakesNcclsCheapestForItsAlgorithm) {
  // The cost model above: LL is cheapest for ring at 64 B, Simple at 64 MiB; tree's LL128 is
  // marked unusable, and a rule for CollNet, whose row is all unusable, changes nothing.
  const std::string path = writeFile("cheapest.json", R"({"format":"collplan-nccl-tuner",
    "version":1,"rules":[{"collective":"broadcast","algorithm":"ring"},
    {"collective":"reduce","algorithm":"tree","max_bytes":1024},
    {"collective":"reduce","algorithm":"collnet_direct","channels":4}]})");
  ScopedChoicesFile env(&path);
  ASSERT_EQ(initRanks(kRanks, kNodes), ncclSuccess);
  EXPECT_EQ(askAll(ncclFuncBroadcast, 64), (Answer{{chosen(NCCL_ALGO_RING, NCCL_PROTO_LL)}, 0}));
  EXPECT_EQ(askAll(ncclFuncBroadcast, size_t(64) << 20),
            (Answer{{chosen(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE)}, 0}));
  EXPECT_EQ(askAll(ncclFuncReduce, 8), (Answer{{chosen(NCCL_ALGO_TREE, NCCL_PROTO_LL)}, 0}));
  EXPECT_EQ(askAll(ncclFuncReduce, 4096), (Answer{{}, 0}));
  EXPECT_TRUE(logHas("reduce of 4096 bytes: rules[2] -> collnet_direct/cheapest is not available"));
}

// getChunkSize sets the chunk of the rule that serves the call, only when NCCL runs that
// rule's algorithm (and protocol, when the rule names one); every other call keeps NCCL's.
TEST_F(NcclTunerPlugin, ChunkSizeFollowsTheRuleWhenNcclRunsItsAlgorithm) {
  const std::string path = writeFile("chunks.json", R"({"format":"collplan-nccl-tuner",
    "version":1,"rules":[{"collective":"allreduce","algorithm":"ring","protocol":"simple",
    "min_bytes":1048576,"chunk_bytes":262144},
    {"collective":"allgather","algorithm":"ring","chunk_bytes":65536},
    {"collective":"broadcast","algorithm":"tree"}]})");
  ScopedChoicesFile env(&path);
  ASSERT_EQ(initRanks(kRanks, kNodes), ncclSuccess);
  auto chunk = [&](ncclFunc_t func, size_t bytes, int algo, int proto) {
    std::set<size_t> answers;  // every rank's
    for (void *ctx : contexts_) {
      size_t size = 131072;  // NCCL's own
      EXPECT_EQ(tuner_->getChunkSize(ctx, func, bytes, algo, proto, 16, &size), ncclSuccess);
      answers.insert(size);
    }
    EXPECT_EQ(answers.size(), 1u) << "ranks answered differently";
    return *answers.begin();
  };
  EXPECT_EQ(chunk(ncclFuncAllReduce, 1 << 24, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE), 262144u);
  EXPECT_EQ(chunk(ncclFuncAllReduce, 1 << 24, NCCL_ALGO_RING, NCCL_PROTO_LL128), 131072u);
  EXPECT_EQ(chunk(ncclFuncAllReduce, 1 << 24, NCCL_ALGO_TREE, NCCL_PROTO_SIMPLE), 131072u);
  EXPECT_EQ(chunk(ncclFuncAllReduce, 4096, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE), 131072u);
  EXPECT_EQ(chunk(ncclFuncAllGather, 4096, NCCL_ALGO_RING, NCCL_PROTO_LL), 65536u);
  EXPECT_EQ(chunk(ncclFuncBroadcast, 4096, NCCL_ALGO_TREE, NCCL_PROTO_LL), 131072u);
  EXPECT_EQ(chunk(ncclFuncReduce, 4096, NCCL_ALGO_RING, NCCL_PROTO_LL), 131072u);
  size_t size = 1;
  EXPECT_EQ(tuner_->getChunkSize(nullptr, ncclFuncAllReduce, 8, 0, 0, 1, &size),
            ncclInternalError);
  EXPECT_EQ(tuner_->getChunkSize(contexts_[0], ncclFuncAllReduce, 8, 0, 0, 1, nullptr),
            ncclInternalError);
}

TEST_F(NcclTunerPlugin, RanksAndNodesSelectRules) {
  ScopedChoicesFile env(&kExample);
  ASSERT_EQ(initRanks(4, 1), ncclSuccess);
  EXPECT_EQ(askAll(ncclFuncAllReduce, 1 << 20),
            (Answer{{chosen(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE)}, 0}));
  EXPECT_EQ(askAll(ncclFuncAllGather, 1 << 20),
            (Answer{{chosen(NCCL_ALGO_PAT, NCCL_PROTO_SIMPLE)}, 0}));
}

TEST_F(NcclTunerPlugin, ASmallerTableThanTheRuleIsLeftAlone) {
  ScopedChoicesFile env(&kExample);
  ASSERT_EQ(initRanks(4, 1), ncclSuccess);
  CostTable table(ncclFuncAllGather, 1 << 20);
  const CostTable before = table;
  int channels = 0;
  // An NCCL with fewer algorithms than PAT's row: the rule must not write past the table.
  ASSERT_EQ(tuner_->getCollInfo(contexts_[0], ncclFuncAllGather, 1 << 20, 1, table.asNccl(),
                                NCCL_ALGO_PAT, kProtos, 0, &channels),
            ncclSuccess);
  EXPECT_TRUE(table.changesFrom(before).empty());
}

TEST_F(NcclTunerPlugin, WithoutTheVariableNcclKeepsItsChoices) {
  ScopedChoicesFile env(nullptr);
  ASSERT_EQ(initRanks(kRanks, kNodes), ncclSuccess);
  EXPECT_TRUE(logHas("COLLPLAN_NCCL_TUNER_FILE is not set: keeping NCCL's own choices"));
  for (ncclFunc_t func : {ncclFuncAllReduce, ncclFuncAllGather, ncclFuncBroadcast})
    for (size_t bytes : {size_t(0), size_t(4096), size_t(1) << 26})
      EXPECT_EQ(askAll(func, bytes), (Answer{{}, 0}));
}

TEST_F(NcclTunerPlugin, BadFilesFailInitAndSayWhy) {
  const std::string head = R"({"format":"collplan-nccl-tuner","version":1,"rules":)";
  const std::string ok = R"("collective":"allreduce","algorithm":"ring")";
  const struct {
    const char *name;
    std::string text, message;
  } cases[] = {
      {"bad-json", "{\"format\": ", "not valid JSON"},
      {"format", R"({"format":"nccl","version":1,"rules":[]})",
       "format: expected \"collplan-nccl-tuner\", got \"nccl\""},
      {"unknown-field", head + "[{" + ok + R"(,"protocol":"ll","chanels":2}]})",
       "rules[0].chanels: unknown field"},
      {"protocol", head + "[{" + ok + R"(,"protocol":"fast"}]})",
       "rules[0].protocol: \"fast\" is not one of ll, ll128, simple"},
      {"min-above-max", head + "[{" + ok + R"(,"protocol":"ll","min_bytes":9,"max_bytes":1}]})",
       "rules[0].max_bytes: must be above min_bytes (9), got 1"},
  };
  for (const auto &c : cases) {
    gLog.clear();
    const std::string path = writeFile(std::string(c.name) + ".json", c.text);
    ScopedChoicesFile env(&path);
    EXPECT_EQ(initRanks(kRanks, kNodes), ncclInvalidUsage) << c.name;
    EXPECT_TRUE(logHas(std::to_string(int(NCCL_LOG_WARN)) + " TUNER/collplan: " + path + ": " +
                       c.message))
        << c.name << ": " << (gLog.empty() ? "nothing logged" : gLog.back());
    std::remove(path.c_str());
  }
  const std::string missing = ::testing::TempDir() + "nccltuner-no-such-file.json";
  ScopedChoicesFile env(&missing);
  EXPECT_EQ(initRanks(kRanks, kNodes), ncclInvalidUsage);
  EXPECT_TRUE(logHas(missing + ": cannot")) << (gLog.empty() ? "" : gLog.back());
}

TEST_F(NcclTunerPlugin, NullArgumentsAreRefusedNotFollowed) {
  int channels = 0;
  CostTable table(ncclFuncAllReduce, 8);
  EXPECT_EQ(tuner_->getCollInfo(nullptr, ncclFuncAllReduce, 8, 1, table.asNccl(), kAlgos,
                                kProtos, 0, &channels),
            ncclInternalError);
  EXPECT_EQ(tuner_->init(nullptr, 0, 8, 1, captureLog, nullptr, nullptr), ncclInvalidArgument);
  EXPECT_EQ(tuner_->finalize(nullptr), ncclSuccess);
}

}  // namespace
