// Mesh lowerings (to be written: see compiler/Passes.td, CollLowerMesh).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerMeshAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
