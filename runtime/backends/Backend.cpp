// The backend registry and Backend's defaults.
#include "runtime/backends/Backend.h"

#include <stdexcept>

namespace collplan {

void NativeCollectives::run(CollectiveKind, const CallBuffers &, int) const {
  throw std::logic_error(functionName(CollectiveKind::AllReduce) +
                         ": these collectives run on devices, not on host ranks");
}

std::unique_ptr<NativeDeviceCalls> NativeCollectives::open(DeviceJob &) const {
  throw std::logic_error(functionName(CollectiveKind::AllReduce) +
                         ": these collectives run on host ranks, not on devices");
}

double Backend::simulateUs(const Plan &, const Topology &, uint64_t) const {
  throw std::logic_error(std::string(name()) + " runs plans; it does not simulate them");
}

std::unique_ptr<DeviceJob> Backend::openDeviceJob(int) const {
  throw std::logic_error(std::string(name()) + " runs ranks on the host; it opens no device job");
}

std::unique_ptr<DeviceJob> Backend::openDeviceRank(const JobOptions &) const {
  return openDeviceJob(0);  // refuses as openDeviceJob does
}

const std::vector<const Backend *> &backends() {
  static const std::vector<const Backend *> registry = {
      &cpuThreadsBackend(), &cpuShmBackend(),
#ifdef COLLPLAN_HAVE_MPI
      &mpiBackend(),  // built only when CMake found MPI
#endif
#ifdef COLLPLAN_HAVE_CUDA
      &cudaBackend(),  // built only when CMake found nvcc
#endif
      &simBackend()};
  return registry;
}

const Backend *findBackend(std::string_view name) {
  for (const Backend *b : backends())
    if (b->name() == name) return b;
  return nullptr;
}

const Backend &requireBackend(std::string_view name) {
  if (const Backend *b = findBackend(name)) return *b;
  throw std::invalid_argument("unknown backend \"" + std::string(name) +
                              "\" (expected one of: " + backendNames() + ")");
}

std::string backendNames() {
  std::string out;
  for (const Backend *b : backends()) out += (out.empty() ? "" : ", ") + std::string(b->name());
  return out;
}

}  // namespace collplan
