// KangaRing lowerings (to be written: see compiler/Passes.td, CollLowerKangaRing).
#include "compiler/lowering/Algorithms.h"

namespace collplan {

void registerKangaRingAlgorithms(std::vector<AlgorithmInfo> &) {}

}  // namespace collplan
