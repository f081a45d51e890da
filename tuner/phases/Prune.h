// Phase 3, prune: the cost model's α and bandwidth, every variant's prediction, and the variants
// predicted far slower than the best dropped before any timing.
#pragma once

#include "tuner/Measurer.h"
#include "tuner/Progress.h"
#include "tuner/TuneResult.h"

#include <vector>

namespace collplan::tune {

/// The settings' prune factor, the automatic 0 resolved: kNoPruning where the runner's times are
/// exact (every variant costs one simulation), 4 elsewhere.
double resolvePruneFactor(const TuneSettings &settings, const Measurer &measurer);

/// α-β for predictions: the topology's where the runner's times are exact (the simulator follows
/// the topology by construction); elsewhere fitted from two quick measurements of the candidate
/// with the fewest α-rounds (small and 1 MiB), falling back to the topology's (and saying why)
/// when the fit fails or is degenerate.
AlphaBeta chooseAlphaBeta(const Topology &topology, const Measurer &measurer,
                          const std::vector<TableResult> &tables);

/// Every variant's prediction at every size, and the candidates predicted more than `factor` ×
/// the best prediction at every size excluded as Pruned (pruneByPrediction). Says per table
/// how many were pruned and how many are left.
void pruneTables(std::vector<TableResult> &tables, const AlphaBeta &alphaBeta, double factor,
                 TuneLog &log);

}  // namespace collplan::tune
