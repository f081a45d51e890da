// Shot lowerings (to be written: see compiler/Passes.td, CollLowerShot).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerShotAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
