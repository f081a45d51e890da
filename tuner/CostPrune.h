// The α-β constants behind the tuner's predictions, and pruning by predicted time.
#pragma once

#include "tuner/Variants.h"

#include <string>
#include <vector>

namespace collplan {
struct Topology;
}

namespace collplan::tune {

/// Per-message latency α and bandwidth for ScheduleCost-style predictions, and where they came
/// from (reported and recorded in the bundle).
struct AlphaBeta {
  double alphaUs = 1;
  double bytesPerUs = 1000;  ///< 1 GB/s
  std::string source;
};

/// α = the mean route latency between ring neighbours (rank r and r+1) and between opposite
/// ranks (r and r+N/2); bandwidth = the narrowest route bandwidth among those pairs. Falls back
/// to 1 µs and 1 GB/s for values a topology leaves at zero.
AlphaBeta alphaBetaFromTopology(const Topology &topology);

/// α, bandwidth fitted from two measured times of one plan with known α-rounds R and β:
/// t_small ≈ R·α (β·M_small/bw ignored), t_large = R·α + β·M_large/bw. Returns `fallback`
/// (with its source noted) when the fit is degenerate (non-positive).
AlphaBeta fitAlphaBeta(double alphaRounds, double beta, double smallUs, double largeUs,
                       double largeBytes, const AlphaBeta &fallback);

/// Which variants survive: a candidate variant is pruned when, at every size, its prediction
/// exceeds `factor` × the best prediction among the candidates (`candidate[i]`: it compiled, can
/// run here and is correct) at that size; non-candidates are kept (they are dropped already). `reasons[i]` says why i was pruned ("predicted
/// ≥ 5.2× the best (ring) at every size; closest at 8 B"), empty when it survives.
struct PruneResult {
  std::vector<bool> keep;
  std::vector<std::string> reasons;
};
PruneResult pruneByPrediction(const std::vector<CompiledVariant> &variants,
                              const std::vector<bool> &candidate,
                              const std::vector<uint64_t> &sizes, const AlphaBeta &ab,
                              double factor);

}  // namespace collplan::tune
