// libnccl-tuner-collplan.so: an NCCL tuner plugin (API v6, and v5) that steers NCCL's choice of
// algorithm, protocol and channels by the rules of a collplan-nccl-tuner file.
#include "runtime/nccltuner/NcclChoices.h"
#include "runtime/nccltuner/NcclTunerAbi.h"
#include "runtime/plan/PlanError.h"

#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <string>

namespace collplan::nccltuner {
namespace {

/// The environment variable that names the choices file.
constexpr const char *kChoicesFileEnv = "COLLPLAN_NCCL_TUNER_FILE";
constexpr const char *kPluginName = "collplan";

/// One communicator's state: NCCL creates one per ncclCommInit*, and the plugin keeps nothing
/// outside it.
struct TunerContext {
  ncclDebugLogger_t log = nullptr;
  NcclChoices choices;  ///< only the rules that apply to this communicator's ranks and nodes
};

/// Sends `message` to NCCL's logger (a printf-like C function; may be null in tests). Takes a
/// C string so that the catch handlers below log without allocating.
void logMessage(ncclDebugLogger_t log, ncclDebugLogLevel level, int line,
                const char *message) noexcept {
  if (log)
    log(level, NCCL_INIT | NCCL_TUNING, __FILE__, line, "TUNER/collplan: %s", message);
}

/// The choices for a communicator of nRanks over nNodes; throws PlanError for a bad file.
NcclChoices loadChoices(const char *path, size_t nRanks, size_t nNodes, ncclDebugLogger_t log) {
  const NcclChoices all = readNcclChoices(path);
  NcclChoices mine = all.forCommunicator(nRanks, nNodes);
  const std::string summary = std::string(path) + ": " + std::to_string(mine.rules.size()) +
                              " of " + std::to_string(all.rules.size()) + " rules apply to " +
                              std::to_string(nRanks) + " ranks on " + std::to_string(nNodes) +
                              " nodes";
  logMessage(log, NCCL_LOG_INFO, __LINE__, summary.c_str());
  return mine;
}

ncclResult_t pluginInit(void **context, uint64_t /*commId*/, size_t nRanks, size_t nNodes,
                        ncclDebugLogger_t log, ncclNvlDomainInfo_v6_t * /*nvlDomainInfo*/,
                        ncclTunerConstants_v6_t * /*constants*/) noexcept {
  if (!context) return ncclInvalidArgument;
  *context = nullptr;
  try {
    auto ctx = std::make_unique<TunerContext>();
    ctx->log = log;
    const char *path = std::getenv(kChoicesFileEnv);
    if (!path || !*path)
      logMessage(log, NCCL_LOG_INFO, __LINE__,
                 "COLLPLAN_NCCL_TUNER_FILE is not set: keeping NCCL's own choices");
    else
      ctx->choices = loadChoices(path, nRanks, nNodes, log);
    *context = ctx.release();
    return ncclSuccess;
  } catch (const PlanError &e) {
    logMessage(log, NCCL_LOG_WARN, __LINE__, e.what());
    return ncclInvalidUsage;
  } catch (const std::bad_alloc &) {
    logMessage(log, NCCL_LOG_WARN, __LINE__, "out of memory while reading the choices file");
    return ncclSystemError;
  } catch (const std::exception &e) {
    logMessage(log, NCCL_LOG_WARN, __LINE__, e.what());
    return ncclInternalError;
  } catch (...) {
    return ncclInternalError;
  }
}

/// The protocol column a rule picks in its algorithm's row: its own, or the cheapest NCCL did
/// not mark unusable; -1 where there is none to pick.
int chosenProtocol(const NcclRule &rule, const float *row, int numProto) {
  if (rule.protocol != kCheapestProtocol)
    return rule.protocol < numProto && row[rule.protocol] != float(NCCL_ALGO_PROTO_IGNORE)
               ? rule.protocol
               : -1;
  int best = -1;
  for (int p = 0; p < numProto; ++p)
    if (row[p] != float(NCCL_ALGO_PROTO_IGNORE) && (best < 0 || row[p] < row[best])) best = p;
  return best;
}

/// Makes NCCL pick the rule's (algorithm, protocol) by giving it cost 0, unless NCCL marked
/// that pair (or, without a protocol, every pair of the algorithm) unusable for this call;
/// returns whether it did.
bool applyRule(const NcclRule &rule, float **collCostTable, int numAlgo, int numProto) {
  if (!collCostTable || rule.algorithm >= numAlgo) return false;
  // NCCL passes a float[numAlgo][numProto] array cast to float**.
  float *row = reinterpret_cast<float *>(collCostTable) + rule.algorithm * numProto;
  const int protocol = chosenProtocol(rule, row, numProto);
  if (protocol < 0) return false;
  row[protocol] = 0.0f;
  return true;
}

ncclResult_t pluginGetCollInfo(void *context, ncclFunc_t collType, size_t nBytes,
                               int /*numPipeOps*/, float **collCostTable, int numAlgo,
                               int numProto, int /*regBuff*/, int *nChannels) noexcept {
  const auto *ctx = static_cast<const TunerContext *>(context);
  if (!ctx) return ncclInternalError;
  const NcclRule *rule = ctx->choices.match(collType, nBytes);
  if (!rule) return ncclSuccess;
  const bool applied = applyRule(*rule, collCostTable, numAlgo, numProto);
  if (applied && rule->channels > 0 && nChannels) *nChannels = rule->channels;
  if (ctx->log)
    ctx->log(NCCL_LOG_TRACE, NCCL_TUNING, __FILE__, __LINE__,
             "TUNER/collplan: %.*s of %zu bytes: rules[%zu] -> %.*s/%.*s%s",
             int(collectiveName(collType).size()), collectiveName(collType).data(), nBytes,
             rule->index, int(algorithmName(rule->algorithm).size()),
             algorithmName(rule->algorithm).data(), int(protocolName(rule->protocol).size()),
             protocolName(rule->protocol).data(),
             applied ? "" : " is not available for this call: NCCL chooses");
  return ncclSuccess;
}

/// The chunk size of the rule that serves the call, when NCCL runs that rule's algorithm and
/// protocol (its own choice otherwise, or with no rule); NCCL clamps it to its buffers.
ncclResult_t pluginGetChunkSize(void *context, ncclFunc_t collType, size_t nBytes, int algo,
                                int proto, int /*nChannels*/, size_t *chunkSize) noexcept {
  const auto *ctx = static_cast<const TunerContext *>(context);
  if (!ctx || !chunkSize) return ncclInternalError;
  const NcclRule *rule = ctx->choices.match(collType, nBytes);
  if (!rule || rule->chunkBytes == 0 || rule->algorithm != algo ||
      (rule->protocol != kCheapestProtocol && rule->protocol != proto))
    return ncclSuccess;
  *chunkSize = size_t(rule->chunkBytes);
  return ncclSuccess;
}

ncclResult_t pluginFinalize(void *context) noexcept {
  delete static_cast<TunerContext *>(context);
  return ncclSuccess;
}

}  // namespace
}  // namespace collplan::nccltuner

// The tables NCCL looks up by name (NCCL 2.30 tries v6 first; v5, without getChunkSize, serves
// older NCCLs).
extern "C" __attribute__((visibility("default"))) const ncclTuner_v6_t ncclTunerPlugin_v6 = {
    collplan::nccltuner::kPluginName, collplan::nccltuner::pluginInit,
    collplan::nccltuner::pluginGetCollInfo, collplan::nccltuner::pluginFinalize,
    collplan::nccltuner::pluginGetChunkSize};
extern "C" __attribute__((visibility("default"))) const ncclTuner_v5_t ncclTunerPlugin_v5 = {
    collplan::nccltuner::kPluginName, collplan::nccltuner::pluginInit,
    collplan::nccltuner::pluginGetCollInfo, collplan::nccltuner::pluginFinalize};
