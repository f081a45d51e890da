// Tree lowerings (to be written: see compiler/Passes.td, CollLowerTree).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerTreeAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
