// ShmControl: segment names, the layout of the control segment, whether a job of a name still
// lives, and removal of a job's segments.
#include "runtime/backends/cpu/ShmControl.h"

#include "runtime/backends/cpu/FlagTransport.h"
#include "runtime/backends/cpu/ShmJobId.h"

#include <chrono>
#include <dirent.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace collplan {
namespace {

/// How long a control segment may stay half set up (no header yet) before it counts as left by
/// a creator that died: setting it up takes microseconds.
constexpr std::chrono::seconds kSetUpGrace{2};

/// Removes every /dev/shm object whose name starts with `prefix` ("/collplan-job-nonce-").
void removeByPrefix(const std::string &prefix) {
  const std::string bare = prefix.substr(1);
  std::vector<std::string> names;
  if (DIR *dir = ::opendir("/dev/shm")) {
    while (const dirent *e = ::readdir(dir))
      if (std::string(e->d_name).compare(0, bare.size(), bare) == 0) names.push_back(e->d_name);
    ::closedir(dir);
  }
  for (const std::string &name : names) ShmSegment::unlink("/" + name);
}

bool nameExists(const std::string &name) {
  return ::access(("/dev/shm" + name).c_str(), F_OK) == 0;
}

/// Waits (up to kSetUpGrace) for the creator to publish the header; false when it never does.
bool headerPublished(const ShmSegment &control) {
  const auto start = std::chrono::steady_clock::now();
  while (headerOf(control).magic.load(std::memory_order_acquire) != kControlMagic) {
    if (std::chrono::steady_clock::now() - start > kSetUpGrace) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

/// Ranks the header claims, when the segment is large enough to hold them; else 0.
int plausibleRanks(const ShmSegment &control) {
  const int ranks = headerOf(control).ranks;
  if (ranks < 1 || ranks > 4096 || control.size() < ControlLayout::forRanks(ranks).bytes) return 0;
  return ranks;
}

/// Whether some process of the job may still run (alive, or in a PID namespace we cannot see).
bool anyProcessLeft(const ShmSegment &control, int ranks) {
  for (int r = 0; r < ranks; ++r) {
    const ProcessId p = processOf(recordOf(control, r));
    if (p.pid != 0 && livenessOf(p) != Liveness::Dead) return true;
  }
  return false;
}

}  // namespace

ControlLayout ControlLayout::forRanks(int ranks) {
  ControlLayout l;
  l.fifoCapacity = fifoDirectoryCapacity(ranks);
  l.directoryBytes = (FifoDirectory::bytesFor(l.fifoCapacity) + 63) & ~size_t(63);
  l.directoriesAt =
      (kControlHeaderBytes + size_t(ranks) * sizeof(RankRecord) + 4095) & ~size_t(4095);
  l.bytes = l.directoriesAt + size_t(ranks) * l.directoryBytes;
  return l;
}

std::string ShmJobNames::control() const { return "/collplan-" + job; }
std::string ShmJobNames::prefix() const {
  return "/collplan-" + job + "-" + nonceText(nonce) + "-";
}
std::string ShmJobNames::ofRank(int rank) const {
  return prefix() + "r" + std::to_string(rank) + "-";
}

ProcessId processOf(const RankRecord &record) {
  ProcessId p;
  p.pid = record.pid.load(std::memory_order_acquire);
  if (p.pid != 0 && record.ready.load(std::memory_order_acquire) == 1) {
    p.startTime = record.startTime;
    p.pidNamespace = record.pidNamespace;
  }
  return p;
}

std::string describeJob(const ShmSegment &control) {
  const ShmHeader &h = headerOf(control);
  const ProcessId creator = processOf(recordOf(control, 0));
  std::string text = "created by pid " + std::to_string(creator.pid);
  if (livenessOf(creator) == Liveness::Unknown) text += " of another PID namespace";
  return text + ", " + std::to_string(h.attached.load(std::memory_order_acquire)) + " of " +
         std::to_string(h.ranks) + " ranks attached";
}

bool creatorDead(const ShmSegment &control) {
  return livenessOf(processOf(recordOf(control, 0))) == Liveness::Dead;
}

std::string freeJobName(const std::string &job) {
  const std::string name = "/collplan-" + job;
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0; attempt < 100; ++attempt) {
    ShmSegment control = ShmSegment::open(name, {kControlHeaderBytes, 0}, false);
    if (!control) {
      if (!nameExists(name)) return "";
      // Not sized yet: its creator is between shm_open and ftruncate, or died there.
      if (std::chrono::steady_clock::now() - start > kSetUpGrace) ShmSegment::unlink(name);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    if (!headerPublished(control)) {
      control.unlinkIfStillNamed();  // its creator died while setting it up
      continue;
    }
    const ShmHeader &h = headerOf(control);
    if (h.version != kControlLayoutVersion)
      return "shared-memory segment /dev/shm" + name + " belongs to a cpu-shm job of another " +
             "collplan version (layout " + std::to_string(h.version) + ", this is " +
             std::to_string(kControlLayoutVersion) + "): pick another job name, or remove it " +
             "if no such job runs";
    const int ranks = plausibleRanks(control);
    if (ranks == 0)
      return "shared-memory segment /dev/shm" + name + " is not a cpu-shm control segment (" +
             std::to_string(control.size()) + " bytes for " + std::to_string(h.ranks) +
             " ranks): pick another job name, or remove it";
    if (anyProcessLeft(control, ranks))
      return "cpu-shm job \"" + job + "\" is already in use by another job (" +
             describeJob(control) + "): pick another job name (collplan-shm-launch picks an " +
             "unused one when --job is left out), or wait until that job ends";
    removeByPrefix(ShmJobNames{job, h.nonce}.prefix());  // every process of that job is dead
    control.unlinkIfStillNamed();
  }
  return "cpu-shm job name \"" + job + "\": /dev/shm" + name +
         " was removed as stale 100 times and came back each time";
}

void removeJobSegments(const ShmJobNames &names) {
  removeByPrefix(names.prefix());
  try {
    ShmSegment control = ShmSegment::open(names.control(), {kControlHeaderBytes, 0}, false);
    if (control && headerOf(control).magic.load(std::memory_order_acquire) == kControlMagic &&
        headerOf(control).nonce == names.nonce)
      control.unlinkIfStillNamed();
  } catch (const std::exception &) {
    // Not this user's object, or not a 0600 one: not ours to remove.
  }
}

}  // namespace collplan
