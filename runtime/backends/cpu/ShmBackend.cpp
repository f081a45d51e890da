// cpu-shm: attach (control segment), peer liveness, leaving a job, staging generations, peer
// staging mappings.
#include "runtime/backends/cpu/ShmBackend.h"

#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace collplan {
namespace {

constexpr size_t kStagingGranule = size_t(1) << 20;
/// MessageSlot::generation of a value posted in place: `where` is its address in the sender.
constexpr uint64_t kInPlaceGeneration = ~uint64_t(0);
/// MessageSlot::generation tag of a value in a shared region: `where` is its offset in region
/// (generation & ~kRegionTag). Staging generations are 62-bit segment ids (newSegmentId), which
/// never have this bit.
constexpr uint64_t kRegionTag = uint64_t(1) << 62;

uint64_t probeValue(int rank) { return kControlMagic ^ uint64_t(rank); }

const std::byte kEmpty[1] = {};

/// The transports of this process, so that a process that exits without destroying them still
/// leaves their jobs (removes its segments) at exit. Never destroyed: atexit handlers may run
/// after static destructors.
struct LiveTransports {
  std::mutex mutex;
  std::vector<std::pair<pid_t, ShmTransport *>> list;  ///< with the process that made each
};

LiveTransports &liveTransports() {
  static LiveTransports *live = [] {
    std::atexit([] {
      LiveTransports &l = liveTransports();
      std::lock_guard<std::mutex> lock(l.mutex);
      for (auto &[pid, transport] : l.list)
        if (pid == ::getpid()) transport->leaveJob();  // a forked child's copies are not its own
    });
    return new LiveTransports;
  }();
  return *live;
}

void track(ShmTransport *t) {
  LiveTransports &l = liveTransports();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.list.emplace_back(::getpid(), t);
}

void untrack(ShmTransport *t) {
  LiveTransports &l = liveTransports();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.list.erase(std::remove_if(l.list.begin(), l.list.end(),
                              [&](const auto &entry) { return entry.second == t; }),
               l.list.end());
}

std::string jobText(const std::string &job) { return "cpu-shm job \"" + job + "\""; }

}  // namespace

void ShmTransport::checkJobName(const std::string &job) {
  if (job.empty() || job.size() > 200)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "cpu-shm job name must be 1 to 200 characters, got " +
                           std::to_string(job.size()));
  for (char c : job)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "cpu-shm job name \"" + job + "\" may only contain letters, digits, " +
                             "'.', '_' and '-'");
}

ShmTransport::ShmTransport(const std::string &job, int rank, int ranks, WaitPolicy policy,
                           uint64_t nonce)
    : FlagTransport(rank, ranks, alsoChecking(std::move(policy), [this] { checkPeers(); })), job_(job),
      peers_(size_t(ranks)), singleCopy_(SingleCopySettings::fromEnvironment()),
      probeWord_(probeValue(rank)) {
  checkJobName(job);
  attach(nonce != 0 ? nonce : nonceFromEnvironment(job));
  regions_.emplace(names_.prefix() + "r", rank, ranks);
  track(this);
}

std::string ShmTransport::stagingName(int rank, uint64_t generation) const {
  return names_.ofRank(rank) + "g" + nonceText(generation);
}

void ShmTransport::createControl(const ControlLayout &layout, uint64_t nonce) {
  const std::string name = names_.control();
  reapStaleJobs();  // what jobs whose processes all died left behind, whatever their names
  for (int attempt = 0;; ++attempt) {
    bool exists = false;
    control_ = ShmSegment::create(name, layout.bytes, &exists);  // zero-filled: calls start at 0
    if (control_) break;
    const std::string why = freeJobName(job_);
    if (!why.empty()) {
      // Without nonces, this job's other ranks may have joined that one: it must stop too.
      if (nonce == 0) contestJob(job_);
      throw RuntimeError(ErrorCode::InvalidArgument, why);
    }
    if (attempt == 100)
      throw RuntimeError(ErrorCode::System, "cannot create shared-memory segment /dev/shm" + name +
                                                ": it was re-created 100 times while rank 0 " +
                                                "of " + jobText(job_) + " tried");
  }
  ShmHeader &h = headerOf(control_);
  h.version = kControlLayoutVersion;
  h.ranks = ranks_;
  h.fifoCapacity = layout.fifoCapacity;
  h.nonce = nonce != 0 ? nonce : newJobNonce();
  h.nonceGiven = nonce != 0 ? 1 : 0;
  recordOf(control_, 0).pid.store(::getpid(), std::memory_order_relaxed);
  publishRecord();  // before the magic: a complete record 0 tells whether the job lives
  h.magic.store(kControlMagic, std::memory_order_release);
}

void ShmTransport::openControl(const ControlLayout &layout, uint64_t nonce) {
  const std::string name = names_.control();
  const auto start = std::chrono::steady_clock::now();
  const auto limit = policy_.timeout.count() > 0 ? policy_.timeout : std::chrono::minutes(10);
  for (;;) {
    control_ = ShmSegment::open(name, {kControlHeaderBytes, 0}, true);
    // A control segment whose rank 0 died is a dead job's: the new rank 0 replaces it.
    if (control_ && headerOf(control_).magic.load(std::memory_order_acquire) == kControlMagic &&
        !creatorDead(control_))
      break;
    control_.unmap();
    if (std::chrono::steady_clock::now() - start > limit)
      throw RuntimeError(ErrorCode::Timeout,
                         "rank " + std::to_string(rank_) + " could not open shared-memory " +
                             "segment /dev/shm" + name + " within " +
                             std::to_string(limit.count() / 1000) + " s: is rank 0 of job \"" +
                             job_ + "\" running with the same job name and rank count?");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ShmHeader &h = headerOf(control_);
  if (nonce == 0 && h.nonceGiven)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       jobText(job_) + " was started with a nonce (" + kNonceVariable +
                           ", as collplan-shm-launch sets it) but rank " +
                           std::to_string(rank_) + " has none: it belongs to another job of " +
                           "that name; give it the job's " + kNonceVariable +
                           ", or pick another job name");
  if (nonce != 0 && h.nonce != nonce)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       jobText(job_) + " is already in use by another job (" +
                           describeJob(control_) + "): rank " + std::to_string(rank_) +
                           " was started for another job of that name (" + kNonceVariable +
                           " differs); pick another job name");
  if (h.version != kControlLayoutVersion || h.ranks != ranks_ ||
      h.fifoCapacity != layout.fifoCapacity)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "shared-memory segment /dev/shm" + name + " was created for " +
                           std::to_string(h.ranks) + " ranks (layout " +
                           std::to_string(h.version) + ") but rank " + std::to_string(rank_) +
                           " expects " + std::to_string(ranks_) +
                           ": every process of a job must pass the same rank count");
  if (control_.size() != layout.bytes)
    throw RuntimeError(ErrorCode::System, "refusing shared-memory segment /dev/shm" + name +
                                              ": it holds " + std::to_string(control_.size()) +
                                              " bytes, " + std::to_string(layout.bytes) +
                                              " expected");
  int64_t free = 0;
  RankRecord &mine = recordOf(control_, rank_);
  if (!mine.pid.compare_exchange_strong(free, ::getpid(), std::memory_order_acq_rel)) {
    const ProcessId holder = processOf(mine);
    const bool alive = livenessOf(holder) != Liveness::Dead;
    // Two processes claim one rank: without a nonce, two jobs may be mixed in this one.
    if (alive && !h.nonceGiven) h.contested.store(1, std::memory_order_release);
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(rank_) + " of " + jobText(job_) +
                           " is already taken by pid " + std::to_string(holder.pid) +
                           (alive ? " (still running): two processes were started as rank " +
                                        std::to_string(rank_) +
                                        ", or another job uses this name (" +
                                        describeJob(control_) + ")"
                                  : " (now dead): that job failed; start a new one"));
  }
}

void ShmTransport::attach(uint64_t nonce) {
  const ControlLayout layout = ControlLayout::forRanks(ranks_);
  fifoCapacity_ = layout.fifoCapacity;
  directoryBytes_ = layout.directoryBytes;
  names_.job = job_;
  if (rank_ == 0)
    createControl(layout, nonce);
  else
    openControl(layout, nonce);
  names_.nonce = headerOf(control_).nonce;
  directories_ = control_.data() + layout.directoriesAt;
  if (rank_ != 0) publishRecord();
  headerOf(control_).attached.fetch_add(1, std::memory_order_acq_rel);
}

void ShmTransport::publishRecord() {
  RankRecord &mine = recordOf(control_, rank_);
  const ProcessId self = thisProcess();
  mine.startTime = self.startTime;
  mine.pidNamespace = self.pidNamespace;
  mine.probeAddress = uint64_t(uintptr_t(&probeWord_));
  mine.ready.store(1, std::memory_order_release);
}

ShmTransport::~ShmTransport() {
  untrack(this);
  leaveJob();
}

void ShmTransport::leaveJob() {
  if (left_ || !control_) return;
  left_ = true;
  if (staging_) ShmSegment::unlink(staging_.name());
  if (regions_) regions_->unlinkAll();
  recordOf(control_, rank_).detached.store(1, std::memory_order_seq_cst);
  // The last rank out removes the control segment, and whatever dead ranks left behind.
  bool deadPeer = false;
  for (int p = 0; p < ranks_; ++p) {
    if (p == rank_) continue;
    const RankRecord &peer = recordOf(control_, p);
    const ProcessId process = processOf(peer);
    if (process.pid == 0 || peer.detached.load(std::memory_order_seq_cst) == 1) continue;
    if (livenessOf(process) != Liveness::Dead) return;  // it is still in the job
    deadPeer = true;
  }
  if (deadPeer) removeJobSegments(names_);
  control_.unlinkIfStillNamed();
}

void ShmTransport::checkContested() const {
  if (headerOf(control_).contested.load(std::memory_order_acquire))
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "rank " + std::to_string(rank_) + " of " + jobText(job_) +
                           ": another job of the same name started while this one ran, and "
                           "neither was given a nonce, so their ranks may have mixed: this job "
                           "stops. Give each job a name of its own, or every rank of a job the "
                           "same " + kNonceVariable + " (16 hex digits)");
}

void ShmTransport::checkPeers() {
  checkContested();
  const ShmHeader &h = headerOf(control_);
  if (const int32_t failed = h.failedRank.load(std::memory_order_acquire))
    failJob(failed - 1, "was found dead or gone by another rank");
  for (int p = 0; p < ranks_; ++p) {
    const RankRecord &peer = recordOf(control_, p);
    if (p == rank_ || peer.callsDone.load(std::memory_order_acquire) >= call_) continue;
    if (peer.detached.load(std::memory_order_acquire) == 1)
      failJob(p, "left the job (destroyed its communicator or exited)");
    const ProcessId process = processOf(peer);
    if (process.pid != 0 && livenessOf(process) == Liveness::Dead)
      failJob(p, "exited or was killed");
  }
}

void ShmTransport::failJob(int peer, const std::string &what) {
  const RankRecord &r = recordOf(control_, peer);
  int32_t none = 0;
  headerOf(control_).failedRank.compare_exchange_strong(none, peer + 1, std::memory_order_acq_rel);
  removeJobSegments(names_);
  throw RuntimeError(ErrorCode::System,
                     "rank " + std::to_string(rank_) + " of " + jobText(job_) + ": rank " +
                         std::to_string(peer) + " (pid " +
                         std::to_string(r.pid.load(std::memory_order_relaxed)) + ") " + what +
                         " before finishing call " + std::to_string(call_) + " (it finished " +
                         std::to_string(r.callsDone.load(std::memory_order_relaxed)) +
                         "): the job cannot go on (its shared-memory segments are removed)");
}

FifoDirectory ShmTransport::directoryOf(int sender) {
  return FifoDirectory::at(directories_ + size_t(sender) * directoryBytes_, fifoCapacity_);
}

std::byte *ShmTransport::reserveStaging(size_t bytes) {
  if (bytes <= staging_.size()) return staging_.data();
  const size_t size = (bytes + kStagingGranule - 1) / kStagingGranule * kStagingGranule;
  const std::string old = staging_ ? staging_.name() : std::string();
  uint64_t id = 0;
  ShmSegment next = ShmSegment::createUnique(
      [&](uint64_t candidate) { return stagingName(rank_, candidate); }, size, id);
  staging_ = std::move(next);
  generation_ = id;
  if (!old.empty()) ShmSegment::unlink(old);
  return staging_.data();
}

size_t ShmTransport::inPlaceMinBytes(const void *base, size_t bytes) const {
  if (base && regions_->find(base, bytes)) return 0;
  return singleCopyActive() ? singleCopy_.minBytes : SIZE_MAX;
}

void ShmTransport::beginCall(const CallSignature &signature) {
  checkContested();
  FlagTransport::beginCall(signature);
  if (!probed_) probeSingleCopy();
}

void ShmTransport::endCall() {
  FlagTransport::endCall();
  recordOf(control_, rank_).callsDone.store(call_, std::memory_order_release);
}

void ShmTransport::waitForAllRanks(const std::atomic<uint64_t> &counter, const char *what) const {
  if (!waitAtLeast(counter, uint64_t(ranks_), policy_))
    throw RuntimeError(ErrorCode::Timeout,
                       "rank " + std::to_string(rank_) + " of cpu-shm job \"" + job_ +
                           "\" waited more than " +
                           std::to_string(policy_.timeout.count() / 1000.0) +
                           " s for every rank to " + what +
                           ": did every process of the job start and make the first call?");
}

void ShmTransport::probeSingleCopy() {
  probed_ = true;
  if (ranks_ == 1) return;
  ShmHeader &h = headerOf(control_);
  waitForAllRanks(h.attached, "attach");
  const int peer = (rank_ + 1) % ranks_;
  const RankRecord &info = recordOf(control_, peer);
  uint64_t word = 0;
  const int error = crossMemoryRead(pid_t(info.pid.load(std::memory_order_relaxed)),
                                    info.probeAddress,
                                    reinterpret_cast<std::byte *>(&word), sizeof word);
  if (error != 0 || word != probeValue(peer))
    h.singleCopyDenied.store(1, std::memory_order_relaxed);
  h.probed.fetch_add(1, std::memory_order_acq_rel);
  waitForAllRanks(h.probed, "finish the single-copy probe");
  canFetch_ = h.singleCopyDenied.load(std::memory_order_relaxed) == 0;
}

void ShmTransport::encode(const std::byte *data, size_t bytes, MessageSlot &slot) {
  slot.generation = generation_;
  if (bytes == 0) {
    slot.where = 0;
    return;
  }
  if (data >= staging_.data() && data + bytes <= staging_.data() + staging_.size()) {
    slot.where = uint64_t(data - staging_.data());
  } else if (const std::optional<ShmRegions::Location> at = regions_->find(data, bytes)) {
    slot.generation = kRegionTag | at->id;
    slot.where = at->offset;
  } else if (singleCopyActive()) {
    slot.generation = kInPlaceGeneration;
    slot.where = uint64_t(uintptr_t(data));
  } else {
    throw RuntimeError(ErrorCode::Internal, "cpu-shm rank " + std::to_string(rank_) +
                                                " asked to publish data outside its staging");
  }
}

void ShmTransport::copyOut(int peer, const MessageSlot &slot, size_t offset, size_t bytes,
                           std::byte *dst) {
  const int64_t pid = recordOf(control_, peer).pid.load(std::memory_order_relaxed);
  const int error = crossMemoryRead(pid_t(pid), slot.where + offset, dst, bytes);
  if (error == 0) return;
  const std::string failure = "cpu-shm rank " + std::to_string(rank_) + " could not copy " +
                              std::to_string(bytes) + " bytes from rank " + std::to_string(peer) +
                              " (pid " + std::to_string(pid) + ") with process_vm_readv: " +
                              std::strerror(error);
  try {
    checkPeers();  // a dead peer is the likely reason: say so
  } catch (const RuntimeError &dead) {
    throw RuntimeError(ErrorCode::System, failure + "; " + dead.what());
  }
  throw RuntimeError(ErrorCode::System,
                     failure +
                         " (did the peer exit? COLLPLAN_SHM_SINGLE_COPY=0 stages every send)");
}

const std::byte *ShmTransport::decode(int peer, const MessageSlot &slot) {
  if (slot.bytes == 0) return kEmpty;
  if (slot.generation == kInPlaceGeneration) return nullptr;  // copied out with copyOut
  if (slot.generation & kRegionTag) {
    try {
      return regions_->peerData(peer, slot.generation & ~kRegionTag, slot.where, slot.bytes);
    } catch (const RuntimeError &) {
      checkPeers();  // a dead peer's segments are removed: say so
      throw;
    }
  }
  PeerStaging &p = peers_[size_t(peer)];
  if (!p.segment || p.generation != slot.generation) {
    p.segment.unmap();
    const std::string name = stagingName(peer, slot.generation);
    p.segment = ShmSegment::open(name, {}, false);
    if (!p.segment) checkPeers();  // a dead peer's segments are removed: say so
    if (!p.segment)
      throw RuntimeError(ErrorCode::System, "rank " + std::to_string(rank_) +
                                                " cannot find rank " + std::to_string(peer) +
                                                "'s staging segment /dev/shm" + name);
    p.generation = slot.generation;
  }
  if (slot.where + slot.bytes > p.segment.size())
    throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(peer) +
                                                " published data past the end of its staging");
  return p.segment.data() + slot.where;
}

}  // namespace collplan
