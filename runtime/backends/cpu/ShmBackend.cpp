// cpu-shm: control segment set-up and attach, staging generations, peer staging mappings.
#include "runtime/backends/cpu/ShmBackend.h"

#include "runtime/exec/RuntimeError.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <thread>

namespace collplan {
namespace {

constexpr uint64_t kMagic = 0x636f6c6c706c616eull;  // "collplan"
constexpr uint32_t kLayoutVersion = 1;
constexpr size_t kHeaderBytes = 4096;
constexpr size_t kStagingGranule = size_t(1) << 20;

struct ShmHeader {
  std::atomic<uint64_t> magic;
  uint32_t version;
  int32_t ranks;
  uint32_t slotCapacity;
  std::atomic<int32_t> attached;
};
static_assert(sizeof(ShmHeader) <= kHeaderBytes, "header fits its page");

ShmHeader &headerOf(const ShmSegment &s) { return *reinterpret_cast<ShmHeader *>(s.data()); }

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

ShmTransport::ShmTransport(const std::string &job, int rank, int ranks, uint32_t slotCapacity,
                           WaitPolicy policy)
    : FlagTransport(rank, ranks, slotCapacity, policy), job_(job), peers_(size_t(ranks)) {
  checkJobName(job);
  attach();
}

std::string ShmTransport::controlName() const { return "/collplan-" + job_; }

std::string ShmTransport::stagingName(int rank, uint64_t generation) const {
  return "/collplan-" + job_ + "-r" + std::to_string(rank) + "-g" + std::to_string(generation);
}

void ShmTransport::attach() {
  const size_t bytes = kHeaderBytes + size_t(ranks_) * slotCapacity_ * sizeof(FlagSlot);
  const std::string name = controlName();
  if (rank_ == 0) {
    control_ = ShmSegment::create(name, bytes);  // zero-filled: every flag starts at call 0
    ShmHeader &h = headerOf(control_);
    h.version = kLayoutVersion;
    h.ranks = ranks_;
    h.slotCapacity = slotCapacity_;
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
    if (h.version != kLayoutVersion || h.ranks != ranks_ || h.slotCapacity != slotCapacity_)
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
  slots_ = reinterpret_cast<FlagSlot *>(control_.data() + kHeaderBytes);
  if (headerOf(control_).attached.fetch_add(1, std::memory_order_acq_rel) + 1 == ranks_)
    ShmSegment::unlink(name);  // everyone has it mapped: remove the name now
}

ShmTransport::~ShmTransport() {
  if (staging_) {
    const std::string name = staging_.name();
    staging_.unmap();
    ShmSegment::unlink(name);
  }
  if (control_ && rank_ == 0 &&
      headerOf(control_).attached.load(std::memory_order_acquire) < ranks_)
    ShmSegment::unlink(controlName());  // the job ends before every rank attached
}

FlagSlot &ShmTransport::slotOf(int sender, uint32_t slot) {
  return slots_[size_t(sender) * slotCapacity_ + slot];
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

void ShmTransport::encode(const std::byte *data, size_t bytes, FlagSlot &slot) {
  slot.generation = generation_;
  if (bytes == 0) {
    slot.where = 0;
    return;
  }
  if (data < staging_.data() || data + bytes > staging_.data() + staging_.size())
    throw RuntimeError(ErrorCode::Internal, "cpu-shm rank " + std::to_string(rank_) +
                                                " asked to publish data outside its staging");
  slot.where = uint64_t(data - staging_.data());
}

const std::byte *ShmTransport::decode(int peer, const FlagSlot &slot) {
  if (slot.bytes == 0) return kEmpty;
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
