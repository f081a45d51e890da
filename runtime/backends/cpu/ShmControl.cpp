// ShmControl: segment names, the layout of the control segment, whether a job of a name still
// lives, and removal of a job's segments.
#include "runtime/backends/cpu/ShmControl.h"

#include "runtime/backends/cpu/FlagTransport.h"
#include "runtime/backends/cpu/ShmJobId.h"

#include <algorithm>
#include <chrono>
#include <dirent.h>
#include <optional>
#include <regex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace collplan {
namespace {

/// How long a control segment may stay half set up (no header yet) before it counts as left by
/// a creator that died: setting it up takes microseconds.
constexpr std::chrono::seconds kSetUpGrace{2};

/// The names in /dev/shm that start with `prefix` (without the leading '/').
std::vector<std::string> namesStartingWith(const std::string &prefix) {
  std::vector<std::string> names;
  if (DIR *dir = ::opendir("/dev/shm")) {
    while (const dirent *e = ::readdir(dir))
      if (std::string(e->d_name).compare(0, prefix.size(), prefix) == 0)
        names.push_back(e->d_name);
    ::closedir(dir);
  }
  return names;
}

/// Removes every /dev/shm object whose name starts with `prefix` ("/collplan-job-nonce-").
void removeByPrefix(const std::string &prefix) {
  for (const std::string &name : namesStartingWith(prefix.substr(1)))
    ShmSegment::unlink("/" + name);
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


namespace {

/// The job of a segment named "collplan-<job>-<nonce>-r<rank>-<kind><id>", if it is one.
std::optional<ShmJobNames> jobOfSegment(const std::string &name) {
  static const std::regex pattern("collplan-(.+)-([0-9a-f]{16})-r[0-9]+-[gm][0-9a-f]{16}");
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) return std::nullopt;
  return ShmJobNames{m[1].str(), std::stoull(m[2].str(), nullptr, 16)};
}

/// Whether `/dev/shm/<name>` belongs to this user and was last changed `age` ago or earlier.
bool ownedAndOlderThan(const std::string &name, std::chrono::seconds age) {
  struct stat st;
  if (::stat(("/dev/shm/" + name).c_str(), &st) != 0 || st.st_uid != ::geteuid()) return false;
  return std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_ctime) >=
         age;
}

/// The nonce of the published control segment of `job` (0: none, or not a control segment).
uint64_t controlNonce(const std::string &job) {
  try {
    ShmSegment control = ShmSegment::open("/collplan-" + job, {kControlHeaderBytes, 0}, false);
    if (control && headerOf(control).magic.load(std::memory_order_acquire) == kControlMagic)
      return headerOf(control).nonce;
  } catch (const std::exception &) {
  }
  return 0;
}

/// Removes the job whose control segment is `/dev/shm/<name>` when it is over: every recorded
/// process dead, or its creator died while setting it up. True when it did.
bool reapControl(const std::string &name) {
  try {
    ShmSegment control = ShmSegment::open("/" + name, {kControlHeaderBytes, 0}, false);
    if (!control) {  // never sized: its creator died between creating and sizing it
      if (!ownedAndOlderThan(name, kSetUpGrace * 5)) return false;
      ShmSegment::unlink("/" + name);
      return true;
    }
    const ShmHeader &h = headerOf(control);
    const uint64_t magic = h.magic.load(std::memory_order_acquire);
    if (magic == 0)  // never published: its creator died while setting it up, if long ago
      return ownedAndOlderThan(name, kSetUpGrace * 5) && control.unlinkIfStillNamed();
    if (magic != kControlMagic) return false;
    const int ranks = plausibleRanks(control);
    if (h.version != kControlLayoutVersion || ranks == 0 || anyProcessLeft(control, ranks))
      return false;
    removeByPrefix(ShmJobNames{name.substr(9), h.nonce}.prefix());
    return control.unlinkIfStillNamed();
  } catch (const std::exception &) {
    return false;  // not this user's, not 0600, not a control segment: not ours to remove
  }
}

}  // namespace

std::vector<std::string> reapStaleJobs() {
  std::vector<std::string> reaped;
  const std::vector<std::string> names = namesStartingWith("collplan-");
  for (const std::string &name : names)
    if (!jobOfSegment(name) && ownedAndOlderThan(name, std::chrono::seconds(0)) &&
        reapControl(name))
      reaped.push_back(name.substr(9));
  // Segments of a job whose control segment is gone (or now holds another job's nonce).
  for (const std::string &name : names) {
    const std::optional<ShmJobNames> job = jobOfSegment(name);
    if (!job || !ownedAndOlderThan(name, std::chrono::seconds(0)) ||
        controlNonce(job->job) == job->nonce)
      continue;
    ShmSegment::unlink("/" + name);
    if (std::find(reaped.begin(), reaped.end(), job->job) == reaped.end())
      reaped.push_back(job->job);
  }
  return reaped;
}

void contestJob(const std::string &job) {
  try {
    ShmSegment control = ShmSegment::open("/collplan-" + job, {kControlHeaderBytes, 0}, true);
    if (control && headerOf(control).magic.load(std::memory_order_acquire) == kControlMagic &&
        headerOf(control).nonceGiven == 0)
      headerOf(control).contested.store(1, std::memory_order_release);
  } catch (const std::exception &) {
  }
}

void markRankFailed(const ShmJobNames &names, int rank) {
  try {
    ShmSegment control = ShmSegment::open(names.control(), {kControlHeaderBytes, 0}, true);
    if (!control || headerOf(control).magic.load(std::memory_order_acquire) != kControlMagic ||
        headerOf(control).nonce != names.nonce)
      return;
    int32_t none = 0;
    headerOf(control).failedRank.compare_exchange_strong(none, rank + 1,
                                                         std::memory_order_acq_rel);
  } catch (const std::exception &) {
  }
}

}  // namespace collplan
