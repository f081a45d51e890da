// ShmRendezvous: job name and nonce through the c10d store; the cpu-shm world of a rank.
#include "runtime/torch/ShmRendezvous.h"

#include "runtime/backends/cpu/ShmJobId.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace collplan::distributed {
namespace {

/// The store key of a group's job: "<name> <nonce as 16 hex digits>".
constexpr const char *kJobKey = "collplan/cpu-shm-job";

/// Sets environment variables for its lifetime and restores their previous values after.
class ScopedEnvironment {
public:
  void set(const char *name, const std::string &value) {
    const char *old = std::getenv(name);
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ::setenv(it->first, it->second->c_str(), 1);
      else
        ::unsetenv(it->first);
    }
  }

private:
  std::vector<std::pair<const char *, std::optional<std::string>>> saved_;
};

/// Serialises the environment changes of openWorld (two groups created on two threads).
std::mutex environmentMutex;

const char *optionalEnv(const char *name) {
  const char *value = std::getenv(name);
  return value && *value ? value : nullptr;
}

}  // namespace

ShmJob agreeOnJob(c10d::Store &store, int rank) {
  if (rank == 0) {
    ShmJob job{defaultJobName("torch-"), newJobNonce()};
    const std::string text = job.name + " " + nonceText(job.nonce);
    store.set(kJobKey, std::vector<uint8_t>(text.begin(), text.end()));
    return job;
  }
  const std::vector<uint8_t> value = store.get(kJobKey);
  const std::string text(value.begin(), value.end());
  const size_t space = text.find(' ');
  if (space == std::string::npos || text.size() - space - 1 != 16)
    throw std::runtime_error("collplan rendezvous (rank " + std::to_string(rank) +
                             "): the store's key " + kJobKey + " holds \"" + text +
                             "\", not \"<job> <16 hex digits>\"");
  return {text.substr(0, space), std::strtoull(text.c_str() + space + 1, nullptr, 16)};
}

collplan::World openWorld(const ShmJob &job, int rank, int size) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cpu-shm";
  config.ranks = size;
  config.rank = rank;
  config.shm_job = job.name.c_str();
  config.bundle_file = optionalEnv("COLLPLAN_BUNDLE");
  config.topology_file = optionalEnv("COLLPLAN_TOPOLOGY");
  // collplan.h takes the nonce only from the environment (as collplan-shm-launch passes it):
  // it applies to the job COLLPLAN_SHM_JOB names, for as long as the world is being created.
  std::lock_guard<std::mutex> lock(environmentMutex);
  ScopedEnvironment environment;
  environment.set("COLLPLAN_SHM_JOB", job.name);
  environment.set(kNonceVariable, nonceText(job.nonce));
  return collplan::World(config);
}

}  // namespace collplan::distributed
