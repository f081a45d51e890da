// Rdh lowerings (to be written: see compiler/Passes.td, CollLowerRdh).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerRdhAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
