// The calibrated-machine fields (op_overhead_us, near cache, intra_device.pull): loading, writing,
// validation errors naming the field, and fingerprints that change only when they are present.
#include "TopologyTestUtil.h"

#include "runtime/topology/Validate.h"

#include <cmath>
#include <limits>

namespace collplan::test {
namespace {

using nlohmann::json;

json withModelTerms() {
  json document = validDocument();
  document["devices"][0]["op_overhead_us"] = 0.125;
  document["devices"][0]["cache_bytes"] = 1 << 20;
  document["devices"][0]["cache_bandwidth_gbps"] = 40;
  document["devices"][0]["near_cache_bytes"] = 65536;
  document["devices"][0]["near_cache_bandwidth_gbps"] = 80;
  document["intra_device"]["pull"] = true;
  return document;
}

TEST(TopologyModelTerms, LoadAndRoundTrip) {
  Topology topo = topologyFromJson(withModelTerms(), "terms.json");
  EXPECT_EQ(topo.devices[0].opOverheadUs, 0.125);
  EXPECT_EQ(topo.devices[0].nearCacheBytes, 65536);
  EXPECT_EQ(topo.devices[0].nearCacheBandwidthGBps, 80);
  EXPECT_TRUE(topo.intraDevicePull);
  Topology back = topologyFromJson(topologyToJson(topo), "back");
  EXPECT_EQ(back.devices[0].opOverheadUs, 0.125);
  EXPECT_EQ(back.devices[0].nearCacheBandwidthGBps, 80);
  EXPECT_TRUE(back.intraDevicePull);
  EXPECT_EQ(back.fingerprint(), topo.fingerprint());
  expectWellFormed(topo);
}

TEST(TopologyModelTerms, AbsentTermsAreNotWrittenAndKeepTheFingerprint) {
  Topology plain = topologyFromJson(validDocument(), "plain.json");
  json written = topologyToJson(plain);
  EXPECT_FALSE(written["devices"][0].contains("op_overhead_us"));
  EXPECT_FALSE(written["devices"][0].contains("near_cache_bytes"));
  EXPECT_FALSE(written["intra_device"].contains("pull"));
  json zeros = validDocument();
  zeros["devices"][0]["op_overhead_us"] = 0;
  zeros["intra_device"]["pull"] = false;
  EXPECT_EQ(topologyFromJson(zeros, "zeros.json").fingerprint(), plain.fingerprint());
}

TEST(TopologyModelTerms, EachTermChangesTheFingerprint) {
  const std::string base = topologyFromJson(validDocument(), "a").fingerprint();
  json overhead = validDocument(), pull = validDocument(), nearCache = validDocument();
  overhead["devices"][0]["op_overhead_us"] = 0.1;
  pull["intra_device"]["pull"] = true;
  nearCache["devices"][0]["near_cache_bytes"] = 4096;
  nearCache["devices"][0]["near_cache_bandwidth_gbps"] = 100;
  EXPECT_NE(topologyFromJson(overhead, "o").fingerprint(), base);
  EXPECT_NE(topologyFromJson(pull, "p").fingerprint(), base);
  EXPECT_NE(topologyFromJson(nearCache, "n").fingerprint(), base);
}

TEST(TopologyModelTerms, BadOverheadNamesTheField) {
  json negative = validDocument();
  negative["devices"][0]["op_overhead_us"] = -0.5;
  EXPECT_TRUE(rejects(negative, "devices[0].op_overhead_us", "must be a non-negative number"));
  json text = validDocument();
  text["devices"][0]["op_overhead_us"] = "NaN";
  EXPECT_TRUE(rejects(text, "devices[0].op_overhead_us", "expected a number, got a string"));
  // NaN cannot be written in JSON; a topology built in code is validated the same way.
  Topology topo = topologyFromJson(validDocument(), "code");
  topo.devices[0].opOverheadUs = std::numeric_limits<double>::quiet_NaN();
  try {
    validateTopology(topo, "code");
    FAIL() << "accepted a NaN overhead";
  } catch (const TopologyError &error) {
    EXPECT_EQ(error.field(), "devices[0].op_overhead_us");
  }
}

TEST(TopologyModelTerms, BadNearCacheAndPull) {
  json noBandwidth = validDocument();
  noBandwidth["devices"][0]["near_cache_bytes"] = 4096;
  EXPECT_TRUE(rejects(noBandwidth, "devices[0].near_cache_bandwidth_gbps", "must be a positive"));
  json larger = withModelTerms();
  larger["devices"][0]["near_cache_bytes"] = 2 << 20;
  EXPECT_TRUE(rejects(larger, "devices[0].near_cache_bytes", "must not exceed cache_bytes"));
  json pull = validDocument();
  pull["intra_device"]["pull"] = 1;
  EXPECT_TRUE(rejects(pull, "intra_device.pull", "expected a boolean"));
}

}  // namespace
TEST(TopologyModelTerms, PullSharingCleanPullsAndHandshakeRoundTrip) {
  json document = withModelTerms();
  document["devices"][0]["pull_bandwidth_gbps"] = 12.5;
  document["intra_device"]["clean_pull_local_bytes"] = 4e6;
  document["intra_device"]["handshake"] = true;
  Topology topo = topologyFromJson(document, "pull.json");
  EXPECT_EQ(topo.devices[0].pullGBps, 12.5);
  EXPECT_EQ(topo.intraDeviceCleanPullBytes, 4e6);
  EXPECT_TRUE(topo.intraDeviceHandshake);
  Topology back = topologyFromJson(topologyToJson(topo), "back");
  EXPECT_EQ(back.devices[0].pullGBps, 12.5);
  EXPECT_EQ(back.intraDeviceCleanPullBytes, 4e6);
  EXPECT_TRUE(back.intraDeviceHandshake);
  EXPECT_EQ(back.fingerprint(), topo.fingerprint());
  // Each term changes the fingerprint; absent ones are not written.
  const std::string base = topologyFromJson(withModelTerms(), "a").fingerprint();
  for (const char *term : {"pull_bandwidth_gbps", "clean_pull_local_bytes", "handshake"}) {
    json one = withModelTerms();
    if (std::string(term) == "pull_bandwidth_gbps") one["devices"][0][term] = 12.5;
    else if (std::string(term) == "handshake") one["intra_device"][term] = true;
    else one["intra_device"][term] = 4e6;
    EXPECT_NE(topologyFromJson(one, term).fingerprint(), base) << term;
  }
  json written = topologyToJson(topologyFromJson(withModelTerms(), "plain"));
  EXPECT_FALSE(written["devices"][0].contains("pull_bandwidth_gbps"));
  EXPECT_FALSE(written["intra_device"].contains("clean_pull_local_bytes"));
  EXPECT_FALSE(written["intra_device"].contains("handshake"));
}

TEST(TopologyModelTerms, BadPullSharingAndCleanPullsNameTheField) {
  json negative = validDocument();
  negative["devices"][0]["pull_bandwidth_gbps"] = -1;
  EXPECT_TRUE(rejects(negative, "devices[0].pull_bandwidth_gbps", "must be a non-negative number"));
  json clean = validDocument();
  clean["intra_device"]["clean_pull_local_bytes"] = -4;
  EXPECT_TRUE(rejects(clean, "intra_device.clean_pull_local_bytes", "must be a non-negative"));
  json handshake = validDocument();
  handshake["intra_device"]["handshake"] = "yes";
  EXPECT_TRUE(rejects(handshake, "intra_device.handshake", "expected"));
}

/// withModelTerms plus a far pull tier: 6 GB/s per pull and 8 GB/s shared beyond 64 MiB.
json withPullTier() {
  json document = withModelTerms();
  document["intra_device"]["pull_cache_bytes"] = 64 << 20;
  document["intra_device"]["pull_memory_bandwidth_gbps"] = 6;
  document["devices"][0]["pull_memory_bandwidth_gbps"] = 8;
  return document;
}

TEST(TopologyModelTerms, PullTierRoundTripsAndChangesTheFingerprint) {
  Topology topo = topologyFromJson(withPullTier(), "tier.json");
  EXPECT_EQ(topo.intraDevicePullCacheBytes, 64 << 20);
  EXPECT_EQ(topo.intraDevicePullMemoryGBps, 6);
  EXPECT_EQ(topo.devices[0].pullMemoryGBps, 8);
  Topology back = topologyFromJson(topologyToJson(topo), "back");
  EXPECT_EQ(back.intraDevicePullCacheBytes, 64 << 20);
  EXPECT_EQ(back.intraDevicePullMemoryGBps, 6);
  EXPECT_EQ(back.devices[0].pullMemoryGBps, 8);
  EXPECT_EQ(back.fingerprint(), topo.fingerprint());
  // Present: a different fingerprint, per field; absent (or 0): not written, fingerprint kept.
  const std::string base = topologyFromJson(withModelTerms(), "a").fingerprint();
  json tierOnly = withPullTier();
  tierOnly["devices"][0].erase("pull_memory_bandwidth_gbps");
  EXPECT_NE(topologyFromJson(tierOnly, "tier").fingerprint(), base);
  EXPECT_NE(topologyFromJson(tierOnly, "tier").fingerprint(), topo.fingerprint());
  json zeros = withModelTerms();
  zeros["intra_device"]["pull_cache_bytes"] = 0;
  zeros["intra_device"]["pull_memory_bandwidth_gbps"] = 0;
  zeros["devices"][0]["pull_memory_bandwidth_gbps"] = 0;
  EXPECT_EQ(topologyFromJson(zeros, "zeros").fingerprint(), base);
  json written = topologyToJson(topologyFromJson(zeros, "zeros"));
  EXPECT_FALSE(written["intra_device"].contains("pull_cache_bytes"));
  EXPECT_FALSE(written["intra_device"].contains("pull_memory_bandwidth_gbps"));
  EXPECT_FALSE(written["devices"][0].contains("pull_memory_bandwidth_gbps"));
}

TEST(TopologyModelTerms, BadPullTierNamesTheField) {
  json noRate = withPullTier();
  noRate["intra_device"].erase("pull_memory_bandwidth_gbps");
  EXPECT_TRUE(rejects(noRate, "intra_device.pull_memory_bandwidth_gbps", "must be a positive"));
  json negative = withPullTier();
  negative["intra_device"]["pull_cache_bytes"] = -1;
  EXPECT_TRUE(rejects(negative, "intra_device.pull_cache_bytes", "must be a non-negative"));
  json noPull = withPullTier();
  noPull["intra_device"]["pull"] = false;
  EXPECT_TRUE(rejects(noPull, "intra_device.pull_cache_bytes", "intra_device.pull is false"));
  json rateAlone = withModelTerms();
  rateAlone["intra_device"]["pull_memory_bandwidth_gbps"] = 6;
  EXPECT_TRUE(rejects(rateAlone, "intra_device.pull_memory_bandwidth_gbps",
                      "intra_device.pull_cache_bytes is 0"));
  json sharedAlone = withModelTerms();
  sharedAlone["devices"][0]["pull_memory_bandwidth_gbps"] = 8;
  EXPECT_TRUE(rejects(sharedAlone, "devices[0].pull_memory_bandwidth_gbps",
                      "intra_device.pull_cache_bytes is 0"));
  json sharedNegative = withPullTier();
  sharedNegative["devices"][0]["pull_memory_bandwidth_gbps"] = -2;
  EXPECT_TRUE(rejects(sharedNegative, "devices[0].pull_memory_bandwidth_gbps",
                      "must be a non-negative"));
  json typo = withPullTier();
  typo["intra_device"]["pull_cache_byte"] = 1;
  EXPECT_TRUE(rejects(typo, "intra_device.pull_cache_byte", "unknown field"));
}

}  // namespace collplan::test
