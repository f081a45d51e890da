// The topology JSON format: parsing with field-by-field errors, writing, loading files.
#include "runtime/core/Files.h"
#include "runtime/core/JsonDocument.h"
#include "runtime/topology/Topology.h"

#include "runtime/topology/TopologyError.h"
#include "runtime/topology/TopologyNames.h"
#include "runtime/topology/Validate.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

namespace collplan {
namespace {

using nlohmann::json;

std::string typeName(const json &value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

/// Reads typed fields of one JSON object, naming `path` (e.g. "links[3]") in every error and
/// rejecting keys the format does not define, so a misspelt field is never silently ignored.
class ObjectReader {
public:
  ObjectReader(const json &value, std::string path, const std::string &origin,
               std::initializer_list<const char *> allowedKeys)
      : value_(value), path_(std::move(path)), origin_(origin) {
    if (!value.is_object())
      throw TopologyError(origin_, path_.empty() ? "(document)" : path_,
                          "expected an object, got " + typeName(value));
    std::set<std::string> allowed(allowedKeys.begin(), allowedKeys.end());
    for (auto it = value.begin(); it != value.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string list;
        for (const char *key : allowedKeys)
          list += (list.empty() ? "" : ", ") + std::string(key);
        throw TopologyError(origin_, field(it.key()),
                            "unknown field (expected one of: " + list + ")");
      }
  }

  std::string field(const std::string &key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  bool has(const char *key) const { return value_.contains(key); }

  const json &require(const char *key) const {
    auto it = value_.find(key);
    if (it == value_.end()) throw TopologyError(origin_, field(key), "missing required field");
    return *it;
  }

  int integer(const char *key) const { return asInteger(require(key), field(key)); }
  int integer(const char *key, int fallback) const { return has(key) ? integer(key) : fallback; }
  double number(const char *key) const {
    const json &value = require(key);
    if (!value.is_number())
      throw TopologyError(origin_, field(key), "expected a number, got " + typeName(value));
    double out = value.get<double>();
    if (!std::isfinite(out)) throw TopologyError(origin_, field(key), "must be finite");
    return out;
  }
  double number(const char *key, double fallback) const {
    return has(key) ? number(key) : fallback;
  }
  bool boolean(const char *key, bool fallback) const {
    if (!has(key)) return fallback;
    const json &value = require(key);
    if (!value.is_boolean())
      throw TopologyError(origin_, field(key), "expected a boolean, got " + typeName(value));
    return value.get<bool>();
  }
  std::string string(const char *key) const {
    const json &value = require(key);
    if (!value.is_string())
      throw TopologyError(origin_, field(key), "expected a string, got " + typeName(value));
    return value.get<std::string>();
  }
  std::string string(const char *key, const std::string &fallback) const {
    return has(key) ? string(key) : fallback;
  }
  const json &array(const char *key) const {
    const json &value = require(key);
    if (!value.is_array())
      throw TopologyError(origin_, field(key), "expected an array, got " + typeName(value));
    return value;
  }
  std::vector<int> integers(const char *key) const {
    std::vector<int> out;
    const json &list = array(key);
    for (size_t i = 0; i < list.size(); ++i)
      out.push_back(asInteger(list[i], field(key) + "[" + std::to_string(i) + "]"));
    return out;
  }

  int asInteger(const json &value, const std::string &fieldPath) const {
    if (!value.is_number_integer())
      throw TopologyError(origin_, fieldPath, "expected an integer, got " + typeName(value));
    if (value.is_number_unsigned()
            ? value.get<uint64_t>() > uint64_t(INT_MAX)
            : (value.get<int64_t>() > INT_MAX || value.get<int64_t>() < INT_MIN))
      throw TopologyError(origin_, fieldPath, "integer out of range");
    return value.get<int>();
  }

private:
  const json &value_;
  std::string path_;
  const std::string &origin_;
};

std::string indexed(const std::string &array, size_t i) {
  return array + "[" + std::to_string(i) + "]";
}

Device parseDevice(const json &value, const std::string &path, const std::string &origin) {
  ObjectReader in(value, path, origin,
                  {"name", "kind", "ranks", "node", "mem_bandwidth_gbps", "reduce_gbps", "coords",
                   "cache_bytes", "cache_bandwidth_gbps", "near_cache_bytes",
                   "near_cache_bandwidth_gbps", "op_overhead_us", "pull_bandwidth_gbps",
                   "pull_memory_bandwidth_gbps", "engines", "engines_per_rank"});
  Device device;
  device.name = in.string("name");
  device.kind = in.string("kind", "chip");
  device.ranks = in.integers("ranks");
  device.node = in.integer("node", 0);
  device.memBandwidthGBps = in.number("mem_bandwidth_gbps");
  device.reduceGBps = in.number("reduce_gbps", 0.0);
  device.cacheBytes = in.number("cache_bytes", 0.0);
  device.cacheBandwidthGBps = in.number("cache_bandwidth_gbps", 0.0);
  device.nearCacheBytes = in.number("near_cache_bytes", 0.0);
  device.nearCacheBandwidthGBps = in.number("near_cache_bandwidth_gbps", 0.0);
  device.opOverheadUs = in.number("op_overhead_us", 0.0);
  device.pullGBps = in.number("pull_bandwidth_gbps", 0.0);
  device.pullMemoryGBps = in.number("pull_memory_bandwidth_gbps", 0.0);
  device.engines = in.integer("engines", 0);
  device.enginesPerRank = in.integer("engines_per_rank", 0);
  if (in.has("coords")) device.coords = in.integers("coords");
  return device;
}

VertexId resolveVertex(const ObjectReader &in, const char *key,
                       const std::map<std::string, VertexId> &vertices, const std::string &origin) {
  std::string name = in.string(key);
  auto it = vertices.find(name);
  if (it == vertices.end())
    throw TopologyError(origin, in.field(key),
                        "unknown vertex '" + name + "' (not the name of a device or switch)");
  return it->second;
}

/// The "features" list: each a known feature, named once.
void readFeatures(const ObjectReader &top, Topology &topo, const std::string &origin) {
  if (!top.has("features")) return;
  const json &features = top.array("features");
  for (size_t f = 0; f < features.size(); ++f) {
    std::string field = indexed("features", f);
    if (!features[f].is_string())
      throw TopologyError(origin, field, "expected a string, got " + typeName(features[f]));
    std::string name = features[f].get<std::string>();
    bool *flag = featureFlag(topo.features, name);
    if (!flag)
      throw TopologyError(origin, field,
                          "unknown feature '" + name + "' (expected one of: " + featureNames() +
                              ")");
    if (*flag) throw TopologyError(origin, field, "feature '" + name + "' is listed twice");
    *flag = true;
  }
}

/// "intra_device": how ranks of one device exchange.
void readIntraDevice(const ObjectReader &top, Topology &topo, const std::string &origin) {
  ObjectReader intra(top.require("intra_device"), "intra_device", origin,
                     {"bandwidth_gbps", "latency_us", "pull", "clean_pull_local_bytes",
                      "handshake", "pull_cache_bytes", "pull_memory_bandwidth_gbps"});
  topo.intraDeviceBandwidthGBps = intra.number("bandwidth_gbps");
  topo.intraDeviceLatencyUs = intra.number("latency_us");
  topo.intraDevicePull = intra.boolean("pull", false);
  topo.intraDeviceCleanPullBytes = intra.number("clean_pull_local_bytes", 0.0);
  topo.intraDeviceHandshake = intra.boolean("handshake", false);
  topo.intraDevicePullCacheBytes = intra.number("pull_cache_bytes", 0.0);
  topo.intraDevicePullMemoryGBps = intra.number("pull_memory_bandwidth_gbps", 0.0);
}

/// "links", whose ends name devices and switches (so the names must be unique first).
void readLinks(const ObjectReader &top, Topology &topo, const std::string &origin) {
  if (topo.devices.empty()) throw TopologyError(origin, "devices", "needs at least one device");
  std::map<std::string, VertexId> vertices;
  std::map<std::string, std::string> definedAt;
  auto addVertex = [&](const std::string &name, VertexId vertex, const std::string &field) {
    auto [it, inserted] = definedAt.emplace(name, field);
    if (!inserted)
      throw TopologyError(origin, field + ".name",
                          "duplicate vertex name '" + name + "' (also " + it->second + ")");
    vertices.emplace(name, vertex);
  };
  for (size_t d = 0; d < topo.devices.size(); ++d)
    addVertex(topo.devices[d].name, int(d), indexed("devices", d));
  for (size_t s = 0; s < topo.switches.size(); ++s)
    addVertex(topo.switches[s].name, int(topo.devices.size() + s), indexed("switches", s));

  const json &links = top.array("links");
  for (size_t l = 0; l < links.size(); ++l) {
    ObjectReader in(links[l], indexed("links", l), origin,
                    {"a", "b", "bandwidth_gbps", "latency_us", "duplex", "dim"});
    Link link;
    link.a = resolveVertex(in, "a", vertices, origin);
    link.b = resolveVertex(in, "b", vertices, origin);
    link.bandwidthGBps = in.number("bandwidth_gbps");
    link.latencyUs = in.number("latency_us");
    link.duplex = in.boolean("duplex", true);
    link.dim = in.integer("dim", -1);
    topo.links.push_back(link);
  }
}

} // namespace

Topology topologyFromJson(const json &document, const std::string &origin) {
  ObjectReader top(document, "", origin,
                   {"format_version", "name", "ranks", "devices", "switches", "links", "dims",
                    "wrap", "routing", "features", "intra_device"});
  int version = top.integer("format_version");
  if (version != kTopologyFormatVersion)
    throw TopologyError(origin, "format_version",
                        "unsupported version " + std::to_string(version) + " (this build reads " +
                            std::to_string(kTopologyFormatVersion) + ")");
  Topology topo;
  topo.name = top.string("name");
  int declaredRanks = top.integer("ranks");

  const json &devices = top.array("devices");
  for (size_t d = 0; d < devices.size(); ++d)
    topo.devices.push_back(parseDevice(devices[d], indexed("devices", d), origin));

  if (top.has("switches")) {
    const json &switches = top.array("switches");
    for (size_t s = 0; s < switches.size(); ++s) {
      ObjectReader in(switches[s], indexed("switches", s), origin, {"name", "kind"});
      topo.switches.push_back(Switch{in.string("name"), in.string("kind", "switch")});
    }
  }

  if (top.has("dims")) topo.dims = top.integers("dims");
  topo.wrap = top.boolean("wrap", true);

  std::string routing = top.string("routing");
  std::optional<Routing> parsedRouting = parseRouting(routing);
  if (!parsedRouting)
    throw TopologyError(origin, "routing",
                        "unknown routing '" + routing + "' (expected one of: " + routingNames() +
                            ")");
  topo.routing = *parsedRouting;

  readFeatures(top, topo, origin);
  readIntraDevice(top, topo, origin);
  readLinks(top, topo, origin);

  validateTopology(topo, origin);
  if (declaredRanks != topo.numRanks())
    throw TopologyError(origin, "ranks",
                        "says " + std::to_string(declaredRanks) + " but the devices hold " +
                            std::to_string(topo.numRanks()) + " ranks");
  topo.finalize();
  return topo;
}

json topologyToJson(const Topology &topo) {
  auto vertexName = [&](VertexId v) {
    int numDevices = int(topo.devices.size());
    return v < numDevices ? topo.devices.at(v).name : topo.switches.at(v - numDevices).name;
  };
  json devices = json::array();
  for (const Device &device : topo.devices) {
    json out = {{"name", device.name},
                {"kind", device.kind},
                {"ranks", device.ranks},
                {"node", device.node},
                {"mem_bandwidth_gbps", device.memBandwidthGBps},
                {"reduce_gbps", device.reduceGBps}};
    if (!device.coords.empty()) out["coords"] = device.coords;
    if (device.cacheBytes > 0) {
      out["cache_bytes"] = device.cacheBytes;
      out["cache_bandwidth_gbps"] = device.cacheBandwidthGBps;
    }
    if (device.nearCacheBytes > 0) {
      out["near_cache_bytes"] = device.nearCacheBytes;
      out["near_cache_bandwidth_gbps"] = device.nearCacheBandwidthGBps;
    }
    if (device.opOverheadUs > 0) out["op_overhead_us"] = device.opOverheadUs;
    if (device.pullGBps > 0) out["pull_bandwidth_gbps"] = device.pullGBps;
    if (device.pullMemoryGBps > 0) out["pull_memory_bandwidth_gbps"] = device.pullMemoryGBps;
    if (device.engines > 0) out["engines"] = device.engines;
    if (device.enginesPerRank > 0) out["engines_per_rank"] = device.enginesPerRank;
    devices.push_back(out);
  }
  json switches = json::array();
  for (const Switch &sw : topo.switches)
    switches.push_back({{"name", sw.name}, {"kind", sw.kind}});
  json links = json::array();
  for (const Link &link : topo.links)
    links.push_back({{"a", vertexName(link.a)},
                     {"b", vertexName(link.b)},
                     {"bandwidth_gbps", link.bandwidthGBps},
                     {"latency_us", link.latencyUs},
                     {"duplex", link.duplex},
                     {"dim", link.dim}});
  json features = json::array();
  for (const char *name : kFeatureNames)
    if (featureEnabled(topo.features, name)) features.push_back(name);
  json intra = {{"bandwidth_gbps", topo.intraDeviceBandwidthGBps},
                {"latency_us", topo.intraDeviceLatencyUs}};
  if (topo.intraDevicePull) intra["pull"] = true;
  if (topo.intraDeviceHandshake) intra["handshake"] = true;
  if (topo.intraDeviceCleanPullBytes > 0)
    intra["clean_pull_local_bytes"] = topo.intraDeviceCleanPullBytes;
  if (topo.intraDevicePullCacheBytes > 0) {
    intra["pull_cache_bytes"] = topo.intraDevicePullCacheBytes;
    intra["pull_memory_bandwidth_gbps"] = topo.intraDevicePullMemoryGBps;
  }
  return json{{"format_version", kTopologyFormatVersion},
              {"name", topo.name},
              {"ranks", topo.numRanks()},
              {"devices", devices},
              {"switches", switches},
              {"links", links},
              {"dims", topo.dims},
              {"wrap", topo.wrap},
              {"routing", std::string(toString(topo.routing))},
              {"features", features},
              {"intra_device", intra}};
}

Topology loadTopologyFile(const std::string &path) {
  std::string text;
  try {
    text = readWholeFile(path);
  } catch (const FileError &e) {
    throw TopologyError(path, "", e.reason());
  }
  json document;
  try {
    document = parseJsonDocument(text, /*cbor=*/false);
  } catch (const JsonSyntaxError &error) {  // not JSON, 1e400, or nested too deeply
    throw TopologyError(path, "", error.what());
  }
  return topologyFromJson(document, path);
}

} // namespace collplan
