// Topology::fingerprint: FNV-1a 64 over a canonical binary serialisation of what affects plans.
#include "runtime/topology/Topology.h"

#include <cstdio>
#include <cstring>

namespace collplan {
namespace {

/// FNV-1a, 64-bit. Values are fed as fixed-width little-endian bytes, so the hash is the same on
/// every platform and does not depend on JSON formatting or field order.
class Fnv1a64 {
public:
  void bytes(const void *data, size_t size) {
    const unsigned char *p = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < size; ++i) {
      hash_ ^= p[i];
      hash_ *= 0x100000001b3ULL;
    }
  }
  void u64(uint64_t value) {
    unsigned char le[8];
    for (int i = 0; i < 8; ++i)
      le[i] = (unsigned char)(value >> (8 * i));
    bytes(le, 8);
  }
  void i64(int64_t value) { u64(uint64_t(value)); }
  void f64(double value) {
    if (value == 0) value = 0; // +0 and -0 hash alike
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    u64(bits);
  }
  /// A tag before each section keeps differently shaped topologies from colliding by accident.
  void tag(char c) { bytes(&c, 1); }
  uint64_t value() const { return hash_; }

private:
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

/// A device's terms; the optional ones only when present, so that fingerprints of topologies
/// without them stay what they were.
void hashDevice(Fnv1a64 &h, const Device &device) {
  h.u64(device.ranks.size());
  for (int rank : device.ranks)
    h.i64(rank);
  h.i64(device.node);
  h.f64(device.memBandwidthGBps);
  h.f64(device.reduceGBps);
  h.u64(device.coords.size());
  for (int c : device.coords)
    h.i64(c);
  if (device.cacheBytes > 0) {  // only when present, so cache-less fingerprints are unchanged
    h.tag('C');
    h.f64(device.cacheBytes);
    h.f64(device.cacheBandwidthGBps);
  }
  if (device.nearCacheBytes > 0) {  // new terms only when present, likewise
    h.tag('N');
    h.f64(device.nearCacheBytes);
    h.f64(device.nearCacheBandwidthGBps);
  }
  if (device.opOverheadUs > 0) {
    h.tag('O');
    h.f64(device.opOverheadUs);
  }
  if (device.pullGBps > 0) {
    h.tag('U');
    h.f64(device.pullGBps);
  }
  if (device.pullMemoryGBps > 0) {
    h.tag('W');
    h.f64(device.pullMemoryGBps);
  }
  if (device.engines > 0 || device.enginesPerRank > 0) {
    h.tag('E');
    h.u64(uint64_t(device.engines));
    h.u64(uint64_t(device.enginesPerRank));
  }
}

void hashLinks(Fnv1a64 &h, const std::vector<Link> &links) {
  h.tag('L');
  h.u64(links.size());
  for (const Link &link : links) {
    h.i64(link.a);
    h.i64(link.b);
    h.f64(link.bandwidthGBps);
    h.f64(link.latencyUs);
    h.i64(link.duplex);
    h.i64(link.dim);
  }
}

/// The intra-device exchange's terms (optional ones only when present, as for devices).
void hashIntraDevice(Fnv1a64 &h, const Topology &t) {
  h.tag('I');
  h.f64(t.intraDeviceBandwidthGBps);
  h.f64(t.intraDeviceLatencyUs);
  if (t.intraDevicePull) h.tag('P');
  if (t.intraDeviceHandshake) h.tag('H');
  if (t.intraDeviceCleanPullBytes > 0) {
    h.tag('L');
    h.f64(t.intraDeviceCleanPullBytes);
  }
  if (t.intraDevicePullCacheBytes > 0) {
    h.tag('T');
    h.f64(t.intraDevicePullCacheBytes);
    h.f64(t.intraDevicePullMemoryGBps);
  }
}

} // namespace

std::string Topology::fingerprint() const {
  Fnv1a64 h;
  h.tag('V');
  h.i64(kTopologyFormatVersion);
  h.tag('D');
  h.u64(devices.size());
  for (const Device &device : devices) hashDevice(h, device);
  h.tag('S');
  h.u64(switches.size());
  hashLinks(h, links);
  h.tag('G');
  h.u64(dims.size());
  for (int extent : dims)
    h.i64(extent);
  h.i64(wrap);
  h.i64(int(routing));
  h.tag('F');
  h.i64(features.duplication);
  h.i64(features.remoteReads);
  h.i64(features.multicast);
  hashIntraDevice(h, *this);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h.value());
  return hex;
}

} // namespace collplan
