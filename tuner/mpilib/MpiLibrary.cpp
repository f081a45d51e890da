// The MPI library registry and what its entries share.
#include "tuner/mpilib/MpiLibrary.h"

namespace collplan::mpilib {

std::string LibraryChoice::label() const {
  std::string out = algorithm ? algorithm->name : "?";
  if (segmentBytes) out += "/" + std::to_string(segmentBytes / 1024) + "K";
  return out;
}

std::vector<LibraryChoice> MpiLibrary::choices(CollectiveKind kind, int ranks, bool quick) const {
  std::vector<LibraryChoice> out;
  for (const LibraryAlgorithm &a : algorithms(kind)) {
    if ((a.onlyRanks && a.onlyRanks != ranks) || (a.evenRanks && ranks % 2)) continue;
    if (!a.segmented) {
      out.push_back({&a, 0});
      continue;
    }
    for (uint32_t segment : segmentSizes(quick)) out.push_back({&a, segment});
  }
  return out;
}

const LibraryAlgorithm *MpiLibrary::findAlgorithm(CollectiveKind kind,
                                                  std::string_view name) const {
  for (const LibraryAlgorithm &a : algorithms(kind))
    if (a.name == name) return &a;
  return nullptr;
}

const std::vector<const MpiLibrary *> &mpiLibraries() {
  static const std::vector<const MpiLibrary *> registry = {&openMpiTuned(), &mpich()};
  return registry;
}

const MpiLibrary *findMpiLibrary(std::string_view name) {
  for (const MpiLibrary *library : mpiLibraries())
    if (library->name() == name) return library;
  return nullptr;
}

std::string mpiLibraryNames() {
  std::string out;
  for (const MpiLibrary *library : mpiLibraries())
    out += (out.empty() ? "" : ", ") + std::string(library->name());
  return out;
}

}  // namespace collplan::mpilib
