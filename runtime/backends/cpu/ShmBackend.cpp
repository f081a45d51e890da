// cpu-shm: control segment set-up and attach, staging generations, peer staging mappings.
#include "runtime/backends/cpu/ShmBackend.h"

#include "runtime/exec/RuntimeError.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>
#include <thread>
#include <unistd.h>

namespace collplan {
namespace {

constexpr uint64_t kMagic = 0x636f6c6c706c616eull;  // "collplan"
constexpr uint32_t kLayoutVersion = 3;
constexpr size_t kHeaderBytes = 4096;
constexpr size_t kStagingGranule = size_t(1) << 20;
/// MessageSlot::generation of a value posted in place: `where` is its address in the sender.
constexpr uint64_t kInPlaceGeneration = ~uint64_t(0);
/// MessageSlot::generation tag of a value in a shared region: `where` is its offset in region
/// (generation & ~kRegionTag). Staging generations count up from 1 and never reach it.
constexpr uint64_t kRegionTag = uint64_t(1) << 62;

struct ShmHeader {
  std::atomic<uint64_t> magic;
  uint32_t version;
  int32_t ranks;
  uint32_t fifoCapacity;
  std::atomic<uint64_t> attached;          ///< ranks that mapped the segment
  std::atomic<uint64_t> probed;            ///< ranks that finished the single-copy probe
  std::atomic<uint32_t> singleCopyDenied;  ///< some rank could not read its peer's memory
};
static_assert(sizeof(ShmHeader) <= kHeaderBytes, "header fits its page");

/// What a rank publishes about itself, after the header (one cache line per rank).
struct alignas(64) RankInfo {
  int64_t pid;
  uint64_t probeAddress;  ///< address of the rank's probe word in its own process
};

ShmHeader &headerOf(const ShmSegment &s) { return *reinterpret_cast<ShmHeader *>(s.data()); }
RankInfo &rankInfo(const ShmSegment &s, int rank) {
  return reinterpret_cast<RankInfo *>(s.data() + kHeaderBytes)[rank];
}
uint64_t probeValue(int rank) { return kMagic ^ uint64_t(rank); }

const std::byte kEmpty[1] = {};

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

ShmTransport::ShmTransport(const std::string &job, int rank, int ranks, WaitPolicy policy)
    : FlagTransport(rank, ranks, policy), job_(job), peers_(size_t(ranks)),
      regions_("/collplan-" + job + "-r", rank, ranks),
      singleCopy_(SingleCopySettings::fromEnvironment()), probeWord_(probeValue(rank)) {
  checkJobName(job);
  attach();
}

std::string ShmTransport::controlName() const { return "/collplan-" + job_; }

std::string ShmTransport::stagingName(int rank, uint64_t generation) const {
  return "/collplan-" + job_ + "-r" + std::to_string(rank) + "-g" + std::to_string(generation);
}

void ShmTransport::attach() {
  fifoCapacity_ = fifoDirectoryCapacity(ranks_);
  directoryBytes_ = (FifoDirectory::bytesFor(fifoCapacity_) + 63) & ~size_t(63);
  const size_t directoriesAt =
      (kHeaderBytes + size_t(ranks_) * sizeof(RankInfo) + 4095) & ~size_t(4095);
  const size_t bytes = directoriesAt + size_t(ranks_) * directoryBytes_;
  const std::string name = controlName();
  if (rank_ == 0) {
    control_ = ShmSegment::create(name, bytes);  // zero-filled: every flag starts at call 0
    ShmHeader &h = headerOf(control_);
    h.version = kLayoutVersion;
    h.ranks = ranks_;
    h.fifoCapacity = fifoCapacity_;
    h.attached.store(0, std::memory_order_relaxed);
    h.magic.store(kMagic, std::memory_order_release);
  } else {
    const auto start = std::chrono::steady_clock::now();
    const auto limit = policy_.timeout.count() > 0 ? policy_.timeout : std::chrono::minutes(10);
    for (;;) {
      control_ = ShmSegment::open(name, kHeaderBytes, true);
      if (control_ && headerOf(control_).magic.load(std::memory_order_acquire) == kMagic) break;
      control_.unmap();
      if (std::chrono::steady_clock::now() - start > limit)
        throw RuntimeError(ErrorCode::Timeout,
                           "rank " + std::to_string(rank_) + " could not open shared-memory " +
                               "segment /dev/shm" + name + " within " +
                               std::to_string(limit.count() / 1000) + " s: is rank 0 of job \"" +
                               job_ + "\" running with the same job name and rank count?");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const ShmHeader &h = headerOf(control_);
    if (h.version != kLayoutVersion || h.ranks != ranks_ || h.fifoCapacity != fifoCapacity_)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "shared-memory segment /dev/shm" + name + " was created for " +
                             std::to_string(h.ranks) + " ranks (layout " +
                             std::to_string(h.version) + ") but rank " + std::to_string(rank_) +
                             " expects " + std::to_string(ranks_) +
                             ": every process of a job must pass the same rank count");
    if (control_.size() < bytes)
      throw RuntimeError(ErrorCode::System, "shared-memory segment /dev/shm" + name + " holds " +
                                                std::to_string(control_.size()) + " bytes, " +
                                                std::to_string(bytes) + " expected");
  }
  directories_ = control_.data() + directoriesAt;
  rankInfo(control_, rank_) = {int64_t(getpid()), uint64_t(uintptr_t(&probeWord_))};
  if (headerOf(control_).attached.fetch_add(1, std::memory_order_acq_rel) + 1 == uint64_t(ranks_))
    ShmSegment::unlink(name);  // everyone has it mapped: remove the name now
}

ShmTransport::~ShmTransport() {
  if (staging_) {
    const std::string name = staging_.name();
    staging_.unmap();
    ShmSegment::unlink(name);
  }
  if (control_ && rank_ == 0 &&
      headerOf(control_).attached.load(std::memory_order_acquire) < uint64_t(ranks_))
    ShmSegment::unlink(controlName());  // the job ends before every rank attached
}

FifoDirectory ShmTransport::directoryOf(int sender) {
  return FifoDirectory::at(directories_ + size_t(sender) * directoryBytes_, fifoCapacity_);
}

std::byte *ShmTransport::reserveStaging(size_t bytes) {
  if (bytes <= staging_.size()) return staging_.data();
  const size_t size = (bytes + kStagingGranule - 1) / kStagingGranule * kStagingGranule;
  const std::string old = staging_ ? staging_.name() : std::string();
  ShmSegment next = ShmSegment::create(stagingName(rank_, generation_ + 1), size);
  staging_ = std::move(next);
  ++generation_;
  if (!old.empty()) ShmSegment::unlink(old);
  return staging_.data();
}

size_t ShmTransport::inPlaceMinBytes(const void *base, size_t bytes) const {
  if (base && regions_.find(base, bytes)) return 0;
  return singleCopyActive() ? singleCopy_.minBytes : SIZE_MAX;
}

void ShmTransport::beginCall(const CallSignature &signature) {
  FlagTransport::beginCall(signature);
  if (!probed_) probeSingleCopy();
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
  const RankInfo info = rankInfo(control_, peer);
  uint64_t word = 0;
  const int error = crossMemoryRead(pid_t(info.pid), info.probeAddress,
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
  } else if (const std::optional<ShmRegions::Location> at = regions_.find(data, bytes)) {
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
  const RankInfo &info = rankInfo(control_, peer);
  if (const int error = crossMemoryRead(pid_t(info.pid), slot.where + offset, dst, bytes))
    throw RuntimeError(ErrorCode::System,
                       "cpu-shm rank " + std::to_string(rank_) + " could not copy " +
                           std::to_string(bytes) + " bytes from rank " + std::to_string(peer) +
                           " (pid " + std::to_string(info.pid) + ") with process_vm_readv: " +
                           std::strerror(error) +
                           " (did the peer exit? COLLPLAN_SHM_SINGLE_COPY=0 stages every send)");
}

const std::byte *ShmTransport::decode(int peer, const MessageSlot &slot) {
  if (slot.bytes == 0) return kEmpty;
  if (slot.generation == kInPlaceGeneration) return nullptr;  // copied out with copyOut
  if (slot.generation & kRegionTag)
    return regions_.peerData(peer, slot.generation & ~kRegionTag, slot.where, slot.bytes);
  PeerStaging &p = peers_[size_t(peer)];
  if (!p.segment || p.generation != slot.generation) {
    p.segment.unmap();
    const std::string name = stagingName(peer, slot.generation);
    p.segment = ShmSegment::open(name, 0, false);
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
