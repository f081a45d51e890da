// IpcBoard: the board's layout in shared memory, its creation and opening, publishing, waiting.
#include "runtime/backends/cuda/IpcBoard.h"

#include "runtime/exec/RuntimeError.h"

#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <vector>

namespace collplan::cuda {
namespace {

/// "cudaipc" in ASCII (little-endian) and the layout's version in the top byte: bump it whenever
/// IpcHeader, IpcSlot or IpcEntry change, so a board of another version is refused.
constexpr uint64_t kIpcMagic = 0x0363706961647563ull;

/// The board's first cache line. Rank 0 writes `ranks`, then publishes `magic` (release).
struct alignas(64) IpcHeader {
  std::atomic<uint64_t> magic;
  int32_t ranks;
};

/// Slot states: a rank claims its slot (compare-and-swap), writes the entry, then marks it
/// ready (release), so two processes started as one rank cannot both write it.
enum : uint32_t { kSlotEmpty = 0, kSlotWriting = 1, kSlotReady = 2 };

/// One rank's slot, after the header.
struct alignas(64) IpcSlot {
  std::atomic<uint32_t> ready;
  std::atomic<uint32_t> left;  ///< 1 once the rank reached leave()
  IpcEntry entry;
};

static_assert(std::atomic<uint32_t>::is_always_lock_free &&
                  std::atomic<int32_t>::is_always_lock_free &&
                  std::atomic<uint64_t>::is_always_lock_free,
              "the board's flags are shared between processes");

size_t boardBytes(int ranks) { return sizeof(IpcHeader) + size_t(ranks) * sizeof(IpcSlot); }

IpcHeader &headerOf(const ShmSegment &segment) {
  return *reinterpret_cast<IpcHeader *>(segment.data());
}
IpcSlot &slotOf(const ShmSegment &segment, int rank) {
  return reinterpret_cast<IpcSlot *>(segment.data() + sizeof(IpcHeader))[rank];
}

std::string jobText(const std::string &job) { return "cuda job \"" + job + "\""; }

[[noreturn]] void badArgument(const std::string &message) {
  throw RuntimeError(ErrorCode::InvalidArgument, message);
}

void checkArguments(const std::string &job, int ranks, int rank) {
  if (job.empty() || job.size() > 200)
    badArgument("cuda job name must be 1 to 200 characters, got " + std::to_string(job.size()));
  for (char c : job)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      badArgument("cuda job name \"" + job + "\" may only contain letters, digits, '.', '_' " +
                  "and '-'");
  if (ranks < 1)
    badArgument(jobText(job) + " needs at least 1 rank, got " + std::to_string(ranks));
  if (rank < 0 || rank >= ranks)
    badArgument(jobText(job) + ": rank " + std::to_string(rank) + " is out of range (0 to " +
                std::to_string(ranks - 1) + ")");
}

/// A timeout in seconds as people write it: "30", "0.05".
std::string secondsText(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", double(timeout.count()) / 1000.0);
  return text;
}

/// "rank 3 of 4 did not publish its" or "ranks 2, 3 of 4 did not publish their".
std::string missingText(const std::vector<int> &missing, int ranks) {
  std::string text = missing.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < missing.size(); ++i)
    text += (i ? ", " : "") + std::to_string(missing[i]);
  return text + " of " + std::to_string(ranks) + " did not publish " +
         (missing.size() == 1 ? "its" : "their");
}

}  // namespace

IpcBoard::IpcBoard(ShmSegment segment, std::string job, int ranks, int rank)
    : segment_(std::move(segment)), job_(std::move(job)), ranks_(ranks), rank_(rank) {}

IpcBoard::IpcBoard(IpcBoard &&other) noexcept
    : segment_(std::move(other.segment_)), job_(std::move(other.job_)), ranks_(other.ranks_),
      rank_(other.rank_), nameRemoved_(other.nameRemoved_) {}

IpcBoard &IpcBoard::operator=(IpcBoard &&other) noexcept {
  if (this != &other) {
    removeName();
    segment_ = std::move(other.segment_);
    job_ = std::move(other.job_);
    ranks_ = other.ranks_;
    rank_ = other.rank_;
    nameRemoved_ = other.nameRemoved_;
  }
  return *this;
}

std::string IpcBoard::objectName(const std::string &job) {
  return "/collplan-" + job + "-cuda-ipc";
}

IpcBoard IpcBoard::open(const std::string &job, int ranks, int rank, const WaitPolicy &policy) {
  checkArguments(job, ranks, rank);
  return rank == 0 ? create(job, ranks) : attach(job, ranks, rank, policy);
}

IpcBoard IpcBoard::create(const std::string &job, int ranks) {
  const std::string name = objectName(job);
  bool exists = false;
  ShmSegment segment = ShmSegment::create(name, boardBytes(ranks), &exists);  // zero-filled
  if (exists)
    badArgument(jobText(job) + ": its CUDA IPC board /dev/shm" + name + " already exists: " +
                "another job of this name is starting, or one that failed left it behind; " +
                "pick another job name, or remove it if no such job runs");
  headerOf(segment).ranks = ranks;
  headerOf(segment).magic.store(kIpcMagic, std::memory_order_release);
  return IpcBoard(std::move(segment), job, ranks, 0);
}

IpcBoard IpcBoard::attach(const std::string &job, int ranks, int rank, const WaitPolicy &policy) {
  const std::string name = objectName(job);
  Backoff backoff(policy);
  ShmSegment segment;
  for (;;) {
    segment = ShmSegment::open(name, {sizeof(IpcHeader), 0}, true);
    const uint64_t magic = segment ? headerOf(segment).magic.load(std::memory_order_acquire) : 0;
    if (magic == kIpcMagic) break;
    if (magic != 0)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "/dev/shm" + name + " is not a CUDA IPC board of this collplan " +
                             "version: pick another job name, or remove it if no such job runs");
    segment.unmap();
    if (!backoff.pause())
      throw RuntimeError(ErrorCode::Timeout,
                         "rank " + std::to_string(rank) + " of " + jobText(job) +
                             " found no CUDA IPC board /dev/shm" + name + " within " +
                             secondsText(policy.timeout) + " s: is rank 0 running, with the " +
                             "same job name?");
  }
  const int created = headerOf(segment).ranks;
  if (created != ranks)
    badArgument(jobText(job) + ": its CUDA IPC board was created for " +
                std::to_string(created) + " ranks but rank " + std::to_string(rank) +
                " expects " + std::to_string(ranks) +
                ": every process of a job must pass the same rank count");
  if (segment.size() != boardBytes(ranks))
    throw RuntimeError(ErrorCode::System, "refusing shared-memory segment /dev/shm" + name +
                                              ": it holds " + std::to_string(segment.size()) +
                                              " bytes, " + std::to_string(boardBytes(ranks)) +
                                              " expected for " + std::to_string(ranks) +
                                              " ranks");
  return IpcBoard(std::move(segment), job, ranks, rank);
}

void IpcBoard::publish(const IpcEntry &mine) {
  IpcSlot &slot = slotOf(segment_, rank_);
  uint32_t empty = kSlotEmpty;
  if (!slot.ready.compare_exchange_strong(empty, kSlotWriting, std::memory_order_acquire))
    badArgument("rank " + std::to_string(rank_) + " of " + jobText(job_) +
                " already published its CUDA IPC handles: publish was called twice, or two " +
                "processes were started as rank " + std::to_string(rank_));
  std::memcpy(&slot.entry, &mine, sizeof mine);
  slot.ready.store(kSlotReady, std::memory_order_release);
}

std::vector<IpcEntry> IpcBoard::waitForAll(const WaitPolicy &policy) const {
  std::vector<IpcEntry> entries(static_cast<size_t>(ranks_));
  std::vector<bool> seen(size_t(ranks_), false);
  int left = ranks_;
  Backoff backoff(policy);
  for (;;) {
    for (int r = 0; r < ranks_; ++r) {
      if (seen[size_t(r)] ||
          slotOf(segment_, r).ready.load(std::memory_order_acquire) != kSlotReady)
        continue;
      std::memcpy(&entries[size_t(r)], &slotOf(segment_, r).entry, sizeof(IpcEntry));
      seen[size_t(r)] = true;
      --left;
    }
    if (left == 0) break;
    if (!backoff.pause()) {
      std::vector<int> missing;
      for (int r = 0; r < ranks_; ++r)
        if (!seen[size_t(r)]) missing.push_back(r);
      throw RuntimeError(ErrorCode::Timeout,
                         missingText(missing, ranks_) + " CUDA IPC handles within " +
                             secondsText(policy.timeout) + " s: did every process of " +
                             jobText(job_) + " start, with the same job name and rank count? " +
                             "(a rank that failed first says why in its own output)");
    }
  }
  removeName();  // every rank has opened the board: nobody needs the name any more
  return entries;
}

bool IpcBoard::leave(const WaitPolicy &policy) const noexcept {
  slotOf(segment_, rank_).left.store(1, std::memory_order_release);
  // A rank is gone once it left, or once its process died (then it reads nothing any more).
  std::vector<bool> gone(size_t(ranks_), false);
  auto stillHere = [&](bool lookUpProcesses) {
    int here = 0;
    for (int r = 0; r < ranks_; ++r) {
      if (gone[size_t(r)]) continue;
      const IpcSlot &slot = slotOf(segment_, r);
      gone[size_t(r)] =
          slot.left.load(std::memory_order_acquire) != 0 ||
          (lookUpProcesses && slot.ready.load(std::memory_order_acquire) == kSlotReady &&
           livenessOf(slot.entry.process) == Liveness::Dead);
      here += gone[size_t(r)] ? 0 : 1;
    }
    return here;
  };
  constexpr auto kLookUpEvery = std::chrono::milliseconds(100);
  auto lastLookUp = std::chrono::steady_clock::now();
  Backoff backoff(policy);
  for (bool lookUp = false; stillHere(lookUp) > 0;) {
    if (!backoff.pause()) return false;
    const auto now = std::chrono::steady_clock::now();
    lookUp = now - lastLookUp >= kLookUpEvery;
    if (lookUp) lastLookUp = now;
  }
  return true;
}

void IpcBoard::removeName() const noexcept {
  if (rank_ != 0 || !segment_ || nameRemoved_) return;
  segment_.unlinkIfStillNamed();
  nameRemoved_ = true;
}

}  // namespace collplan::cuda
