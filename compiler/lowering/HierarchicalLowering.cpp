// Hierarchical lowerings (to be written: see compiler/Passes.td, CollLowerHierarchical).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerHierarchicalAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
