// Pairwise lowerings (to be written: see compiler/Passes.td, CollLowerPairwise).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerPairwiseAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
