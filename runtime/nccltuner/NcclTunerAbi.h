// NCCL's tuner plugin C ABI, v6 (and v5): mirrors NCCL 2.30's src/include/plugin/tuner/tuner_v6.h.
#pragma once

// NCCL is not a build dependency: this header restates, field for field, what NCCL's own
// headers declare for a tuner plugin, from github.com/NVIDIA/nccl at 5067397c (v2.30):
//   ncclResult_t                      src/nccl.h.in
//   ncclDebugLogLevel, log subsystems src/include/nccl_common.h
//   ncclDebugLogger_t, ncclFunc_t     src/include/nccl_common.h
//   NCCL_ALGO_*, NCCL_PROTO_*         src/include/plugin/nccl_tuner.h
//   ncclTunerConstants_v5_t,
//   ncclNvlDomainInfo_v5_t, v5 table  src/include/plugin/tuner/tuner_v5.h
//   ncclTuner_v6_t                    src/include/plugin/tuner/tuner_v6.h
// NCCL looks up "ncclTunerPlugin_v6", then _v5, ... _v2, in the library NCCL_TUNER_PLUGIN names.
// (plugins/tuner/example/nccl/tuner.h in the same tree lacks perChMaxNVLSTreeBws in the
// constants; the core's tuner_v5.h, which allocates the struct, has it, so we follow the core.)

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclTimeout = 8,
  ncclNumResults = 9
} ncclResult_t;

typedef enum {
  NCCL_LOG_NONE = 0,
  NCCL_LOG_VERSION = 1,
  NCCL_LOG_WARN = 2,
  NCCL_LOG_INFO = 3,
  NCCL_LOG_ABORT = 4,
  NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

typedef enum {
  NCCL_INIT = 0x1,
  NCCL_COLL = 0x2,
  NCCL_P2P = 0x4,
  NCCL_SHM = 0x8,
  NCCL_NET = 0x10,
  NCCL_GRAPH = 0x20,
  NCCL_TUNING = 0x40,
  NCCL_ENV = 0x80,
  NCCL_ALLOC = 0x100,
  NCCL_CALL = 0x200,
  NCCL_PROXY = 0x400,
  NCCL_NVLS = 0x800,
  NCCL_BOOTSTRAP = 0x1000,
  NCCL_REG = 0x2000,
  NCCL_PROFILE = 0x4000,
  NCCL_RAS = 0x8000,
  NCCL_DESTROY = 0x10000,
  NCCL_ALLOC_HOST = 0x20000,
  NCCL_ALL = ~0
} ncclDebugLogSubSys;

typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char *file,
                                  int line, const char *fmt, ...);

typedef enum {
  ncclFuncBroadcast = 0,
  ncclFuncReduce = 1,
  ncclFuncAllGather = 2,
  ncclFuncReduceScatter = 3,
  ncclFuncAllReduce = 4,
  ncclFuncSendRecv = 5,
  ncclFuncSend = 6,
  ncclFuncRecv = 7,
  ncclFuncAlltoAll = 8,
  ncclFuncScatter = 9,
  ncclFuncGather = 10,
  ncclFuncAllGatherV = 11,
  ncclFuncPutSignal = 12,
  ncclFuncSignal = 13,
  ncclFuncWaitSignal = 14,
  ncclNumFuncs = 15
} ncclFunc_t;

#define NCCL_ALGO_UNDEF -1
#define NCCL_ALGO_TREE 0
#define NCCL_ALGO_RING 1
#define NCCL_ALGO_COLLNET_DIRECT 2
#define NCCL_ALGO_COLLNET_CHAIN 3
#define NCCL_ALGO_NVLS 4
#define NCCL_ALGO_NVLS_TREE 5
#define NCCL_ALGO_PAT 6
#define NCCL_NUM_ALGORITHMS_V5 7

#define NCCL_PROTO_UNDEF -1
#define NCCL_PROTO_LL 0
#define NCCL_PROTO_LL128 1
#define NCCL_PROTO_SIMPLE 2
#define NCCL_NUM_PROTOCOLS_V5 3

/// The cost NCCL core writes into the entries of algorithm/protocol pairs it cannot use.
#define NCCL_ALGO_PROTO_IGNORE -1.0

#define NCCL_NUM_HW_LINKS_V5 3
#define NCCL_NUM_COMPCAPS_V5 4
#define NCCL_NUM_TUNING_SCALES_V5 3

typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} ncclNvlDomainInfo_v5_t;

typedef struct {
  double baseLatencies[NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  double hwLatencies[NCCL_NUM_HW_LINKS_V5][NCCL_NUM_ALGORITHMS_V5][NCCL_NUM_PROTOCOLS_V5];
  double llMaxBws[NCCL_NUM_COMPCAPS_V5][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxRingLL128Bws[NCCL_NUM_COMPCAPS_V5][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxTreeLL128Bws[NCCL_NUM_COMPCAPS_V5][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxTreeBws[NCCL_NUM_COMPCAPS_V5][NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxNVLSTreeBws[NCCL_NUM_COMPCAPS_V5][NCCL_NUM_TUNING_SCALES_V5];
} ncclTunerConstants_v5_t;

typedef ncclTunerConstants_v5_t ncclTunerConstants_v6_t;
typedef ncclNvlDomainInfo_v5_t ncclNvlDomainInfo_v6_t;

/// The v5 table: v6 without getChunkSize.
typedef struct {
  const char *name;
  ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction, ncclNvlDomainInfo_v5_t *nvlDomainInfo,
                       ncclTunerConstants_v5_t *constants);
  ncclResult_t (*getCollInfo)(void *context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                              float **collCostTable, int numAlgo, int numProto, int regBuff,
                              int *nChannels);
  ncclResult_t (*finalize)(void *context);
} ncclTuner_v5_t;

/// The v6 table. collCostTable is really a float[numAlgo][numProto] array (NCCL casts it to
/// float**); *nChannels enters as 0, meaning "NCCL decides". getChunkSize may be NULL.
typedef struct {
  const char *name;
  ncclResult_t (*init)(void **ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                       ncclDebugLogger_t logFunction, ncclNvlDomainInfo_v6_t *nvlDomainInfo,
                       ncclTunerConstants_v6_t *constants);
  ncclResult_t (*getCollInfo)(void *context, ncclFunc_t collType, size_t nBytes, int numPipeOps,
                              float **collCostTable, int numAlgo, int numProto, int regBuff,
                              int *nChannels);
  ncclResult_t (*finalize)(void *context);
  ncclResult_t (*getChunkSize)(void *context, ncclFunc_t collType, size_t nBytes, int algo,
                               int proto, int nChannels, size_t *chunkSize);
} ncclTuner_v6_t;

#define NCCL_TUNER_PLUGIN_SYMBOL_V6 "ncclTunerPlugin_v6"
#define NCCL_TUNER_PLUGIN_SYMBOL_V5 "ncclTunerPlugin_v5"

#ifdef __cplusplus
}  // extern "C"

// The layout NCCL 2.30 compiles against, on LP64: 7x3 + 3x7x3 + 5x4x3 doubles, and the
// function pointers in declaration order.
static_assert(sizeof(ncclTunerConstants_v5_t) == (21 + 63 + 60) * sizeof(double),
              "ncclTunerConstants_v5_t differs from NCCL's tuner_v5.h");
static_assert(sizeof(ncclNvlDomainInfo_v5_t) == 3 * sizeof(int),
              "ncclNvlDomainInfo_v5_t differs from NCCL's tuner_v5.h");
static_assert(sizeof(ncclTuner_v6_t) == 5 * sizeof(void *) &&
                  offsetof(ncclTuner_v6_t, getChunkSize) == 4 * sizeof(void *),
              "ncclTuner_v6_t differs from NCCL's tuner_v6.h");
static_assert(sizeof(ncclTuner_v5_t) == 4 * sizeof(void *),
              "ncclTuner_v5_t differs from NCCL's tuner_v5.h");
static_assert(sizeof(ncclFunc_t) == sizeof(int) && sizeof(ncclResult_t) == sizeof(int),
              "NCCL's enums are int-sized");
#endif
