// ShmRegions: allocation, lookup by address, and the peers' lazily mapped regions.
#include "runtime/backends/cpu/ShmRegions.h"

#include "runtime/backends/cpu/ShmJobId.h"
#include "runtime/exec/RuntimeError.h"

#include <algorithm>

namespace collplan {

ShmRegions::ShmRegions(std::string prefix, int rank, int ranks)
    : prefix_(std::move(prefix)), rank_(rank), peers_(size_t(ranks)) {}

ShmRegions::~ShmRegions() {
  for (auto &[start, region] : owned_) {
    region.second.unmap();
    ShmSegment::unlink(nameOf(rank_, region.first));
  }
}

void ShmRegions::unlinkAll() const {
  for (const auto &[start, region] : owned_) ShmSegment::unlink(nameOf(rank_, region.first));
}

std::string ShmRegions::nameOf(int rank, uint64_t id) const {
  return prefix_ + std::to_string(rank) + "-m" + nonceText(id);
}

void *ShmRegions::allocate(size_t bytes) {
  const size_t size = std::max<size_t>((bytes + 4095) & ~size_t(4095), 4096);
  uint64_t id = 0;
  ShmSegment segment = ShmSegment::createUnique(
      [&](uint64_t candidate) { return nameOf(rank_, candidate); }, size, id);
  std::byte *start = segment.data();
  owned_.emplace(uintptr_t(start), std::make_pair(id, std::move(segment)));
  return start;
}

bool ShmRegions::release(void *p) {
  auto it = owned_.find(uintptr_t(p));
  if (it == owned_.end()) return false;
  const uint64_t id = it->second.first;
  owned_.erase(it);  // unmaps
  ShmSegment::unlink(nameOf(rank_, id));
  return true;
}

std::optional<ShmRegions::Location> ShmRegions::find(const void *p, size_t bytes) const {
  auto it = owned_.upper_bound(uintptr_t(p));
  if (it == owned_.begin()) return std::nullopt;
  --it;
  const uintptr_t start = it->first, end = start + it->second.second.size();
  if (uintptr_t(p) + bytes > end) return std::nullopt;
  return Location{it->second.first, uint64_t(uintptr_t(p) - start)};
}

const std::byte *ShmRegions::peerData(int peer, uint64_t id, uint64_t offset, uint64_t bytes) {
  std::vector<Mapped> &mapped = peers_[size_t(peer)];
  auto it = std::find_if(mapped.begin(), mapped.end(), [&](const Mapped &m) { return m.id == id; });
  if (it == mapped.end()) {
    auto older = [](const Mapped &a, const Mapped &b) { return a.lastUse < b.lastUse; };
    if (mapped.size() >= kMappedPerPeer)
      mapped.erase(std::min_element(mapped.begin(), mapped.end(), older));
    const std::string name = nameOf(peer, id);
    Mapped m;
    m.id = id;
    m.segment = ShmSegment::open(name, {}, false);
    if (!m.segment)
      throw RuntimeError(ErrorCode::System, "rank " + std::to_string(rank_) +
                                                " cannot find rank " + std::to_string(peer) +
                                                "'s buffer segment /dev/shm" + name +
                                                " (was it freed during a call?)");
    mapped.push_back(std::move(m));
    it = mapped.end() - 1;
  }
  it->lastUse = ++useClock_;
  if (offset + bytes > it->segment.size())
    throw RuntimeError(ErrorCode::Internal, "rank " + std::to_string(peer) +
                                                " published data past the end of its buffer "
                                                "segment " + std::to_string(id));
  return it->segment.data() + offset;
}

}  // namespace collplan
