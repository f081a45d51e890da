// The rules file of the NCCL tuner plugin (runtime/nccltuner) from a tuning's winners.
#pragma once

#include "tuner/TuneResult.h"

#include <nlohmann/json.hpp>

namespace collplan::tune {

/// A collplan-nccl-tuner document for `result`: per collective NCCL tunes (allreduce, allgather,
/// reduce-scatter, broadcast, reduce), one rule per size bucket whose winner has an NCCL
/// counterpart (AlgorithmInfo::ncclAlgorithm), for the tuning's rank and node counts, with no
/// protocol (NCCL picks the cheapest for the algorithm). Buckets won by algorithms NCCL lacks
/// get no rule: NCCL keeps its own choice there. A collective tuned for several dtypes or ops
/// takes its first table's buckets. The document is checked by the plugin's own reader.
nlohmann::json ncclTunerRules(const TuneResult &result);

}  // namespace collplan::tune
