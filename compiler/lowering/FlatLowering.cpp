// Flat lowerings (to be written: see compiler/Passes.td, CollLowerFlat).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerFlatAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
