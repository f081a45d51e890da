// calibrate(): measure the calibration plans, fit them, and solve the topology's model figures
// with the simulator so that it reproduces the measurements.
#include "tuner/calibrate/Calibrate.h"

#include "runtime/backends/Backend.h"

#include "runtime/sim/Simulator.h"
#include "runtime/topology/Generators.h"
#include "runtime/topology/Validate.h"
#include "tuner/calibrate/CalibrationPlans.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace collplan::calibrate {
namespace {

/// The largest rank count calibrate accepts (the runtime's slot tables and a sane thread count).
constexpr int kMaxRanks = 1024;

std::string fmt(double value, int precision = 3) {
  std::ostringstream out;
  out.precision(precision);
  out << value;
  return out.str();
}

Measurement measureOne(const std::string &what, Plan plan, const CalibrationSettings &settings,
                       const MeasureFn &measure, const std::function<void(const std::string &)> &log) {
  if (log) log("measuring " + what + " (" + plan.algorithm + ", " +
               std::to_string(settings.ranks) + " ranks, " +
               std::to_string(settings.sizes.size()) + " sizes)");
  Measurement m;
  m.what = what;
  m.plan = std::move(plan);
  m.bytes = settings.sizes;
  m.timesUs = measure(m.plan, m.bytes);
  if (m.timesUs.size() != m.bytes.size())
    throw std::runtime_error(what + ": the backend returned " +
                             std::to_string(m.timesUs.size()) + " times for " +
                             std::to_string(m.bytes.size()) + " sizes");
  fitMeasurement(m, settings.weighting);
  return m;
}

/// Simulated time per message byte of `plan` on `topo`, from two large sizes.
double simulatedSlope(const Plan &plan, const Topology &topo, const std::vector<uint64_t> &sizes) {
  uint64_t hi = std::max<uint64_t>(sizes.back(), 2 << 20), lo = hi / 2;
  return (simulateTimeUs(plan, topo, hi) - simulateTimeUs(plan, topo, lo)) / double(hi - lo);
}

/// Simulated time per message byte of `plan` on `topo` just below `bytes` (from bytes / 2).
double simulatedSlopeAt(const Plan &plan, const Topology &topo, uint64_t bytes) {
  uint64_t lo = bytes / 2;
  return (simulateTimeUs(plan, topo, bytes) - simulateTimeUs(plan, topo, lo)) / double(bytes - lo);
}

/// Σ of squared relative errors of the simulated plan against points [first, last) of a
/// measurement.
double simulationError(const Measurement &m, const Topology &topo, size_t first, size_t last) {
  double sum = 0;
  for (size_t i = first; i < last; ++i) {
    double e = (simulateTimeUs(m.plan, topo, m.bytes[i]) - m.timesUs[i]) / m.timesUs[i];
    sum += e * e;
  }
  return sum;
}

/// The x in [lo, hi] minimising a unimodal `error` (golden-section search, 60 steps).
template <typename Error>
double goldenSection(double lo, double hi, const Error &error) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double e1 = error(x1), e2 = error(x2);
  for (int it = 0; it < 60; ++it) {
    if (e1 <= e2) {
      hi = x2, x2 = x1, e2 = e1;
      x1 = hi - g * (hi - lo), e1 = error(x1);
    } else {
      lo = x1, x1 = x2, e1 = e2;
      x2 = lo + g * (hi - lo), e2 = error(x2);
    }
  }
  return 0.5 * (lo + hi);
}

/// The plan's footprint on one device per message byte when all its ranks share it, as the
/// simulator counts it: every rank's input, output and scratch.
double footprintPerByte(const Plan &plan) {
  return double(plan.ranks) * (2.0 + double(plan.scratchUnits) / double(plan.units));
}

/// The first point of the ring shift's far pull tier: where its tier fit ends in a slope
/// steeper than the tier before (its pulls leave the caches), or the point count when none.
size_t farPullTierStart(const Measurement &shift) {
  const TierFit &tiers = shift.tiers;
  const size_t k = tiers.regimes();
  if (k >= 2 && tiers.usPerByte[k - 1] > tiers.usPerByte[k - 2]) return tiers.breaks[k - 2];
  return shift.bytes.size();
}

/// The pull rates, fitted to the ring shift with the simulator (golden-section search on a log
/// scale). Its pulls all run at once, one per rank: with more ranks than cores they share the
/// cores, so what it measures is each pull's share P. A pull alone runs on a whole core: cap
/// P·N / min(N, cores), and all pulls together P·N.
/// Pulls are tiered like the memory: when the ring shift's last tier is slower than the one
/// before, its pulls beyond that break no longer find the written lines in the caches. The
/// points below it fit the near rate and those from it the far one, and the break becomes the
/// ring shift's footprint between the two sizes around it (as the copy's breaks do). The far
/// tier is kept only when it reproduces those points better than the near rate does (the
/// memory tiers may already explain them).
void fitPullTiers(Calibration &c, int cores, ModelFigures &f) {
  const int n = c.settings.ranks;
  const Measurement &shift = c.pointToPoint;
  // A tier's figures from the share P each of the ring shift's N concurrent pulls gets.
  auto tier = [&](double ModelFigures::*alone, double ModelFigures::*together) {
    return [=](ModelFigures &figures, double perPullAllBusy) {
      figures.*alone = perPullAllBusy * double(n) / double(cores);
      figures.*together = cores < n ? perPullAllBusy * double(n) : 0.0;
    };
  };
  const auto setNear = tier(&ModelFigures::pullGBps, &ModelFigures::devicePullGBps);
  const auto setFar = tier(&ModelFigures::pullMemoryGBps, &ModelFigures::devicePullMemoryGBps);
  auto errorOf = [&](const ModelFigures &figures, size_t first, size_t last) {
    return simulationError(shift, calibratedTopology(c.settings, figures), first, last);
  };
  /// Fits one tier's rate on points [first, last) and returns their error.
  auto fit = [&](const std::function<void(ModelFigures &, double)> &set, size_t first,
                 size_t last) {
    double logRate = goldenSection(-2, 5, [&](double logPerPull) {  // 0.01 GB/s .. 100 TB/s
      ModelFigures trial = f;
      set(trial, std::pow(10.0, logPerPull));
      return errorOf(trial, first, last);
    });
    set(f, std::pow(10.0, logRate));
    return errorOf(f, first, last);
  };
  const size_t farFrom = farPullTierStart(shift), points = shift.bytes.size();
  fit(setNear, 0, farFrom);
  if (farFrom == points) return;
  const double nearError = errorOf(f, farFrom, points);
  f.pullCacheBytes = footprintPerByte(shift.plan) *
                     std::sqrt(double(shift.bytes[farFrom - 1]) * double(shift.bytes[farFrom]));
  const double farError = fit(setFar, farFrom, points);
  if (!(farError < nearError * (1 - 1e-9))) {
    c.notes.push_back("the ring shift's slower large sizes are explained by the memory tiers: "
                      "one pull tier");
    f.pullCacheBytes = f.pullMemoryGBps = f.devicePullMemoryGBps = 0;
  } else if (f.pullMemoryGBps > f.pullGBps) {
    c.notes.push_back("the far pull tier fitted faster than the near one");
  }
}

}  // namespace

/// Derives the model figures from the measurements, each solved with the simulator itself:
///  - memory tiers from the copy (a purely local 1R1W stream): its tier fit gives up to three
///    slopes (near cache, cache, DRAM) and the breaks, turned into footprints (2·M·ranks);
///  - the per-op overhead from the copy chain: (its α − the copy's α) / (ops − 1);
///  - reductions: the measured combine rate when slower than the memory model predicts;
///  - transfers are pulls (the cpu backends read a peer's buffer in place); the latency is the
///    ring shift's α less its ops' overheads, and the pull bandwidth the cap that best reproduces
///    the ring shift (golden-section search on a log scale), in two tiers when its largest
///    sizes pull slower than the memory tiers explain (fitPullTiers).
void deriveModel(Calibration &c, const std::function<void(const std::string &)> &log) {
  const int n = c.settings.ranks;
  const std::vector<uint64_t> &sizes = c.settings.sizes;
  ModelFigures f;
  const double reference = 1000;
  f.memGBps = reference;
  f.pullGBps = 1e6;
  const double scale =
      reference * simulatedSlope(c.copy.plan, calibratedTopology(c.settings, f), sizes);
  const TierFit &tiers = c.copy.tiers;
  auto footprint = [&](size_t breakIndex) {  // between the two measured sizes around the break
    return 2.0 * n * std::sqrt(double(sizes[breakIndex - 1]) * double(sizes[breakIndex]));
  };
  const size_t k = tiers.regimes();
  f.memGBps = scale / tiers.usPerByte[k - 1];
  if (k >= 2) {
    f.cacheBytes = footprint(tiers.breaks[k - 2]);
    f.cacheGBps = scale / tiers.usPerByte[k - 2];
  }
  if (k == 3) {
    f.nearCacheBytes = footprint(tiers.breaks[0]);
    f.nearCacheGBps = scale / tiers.usPerByte[0];
  }
  if ((k >= 2 && f.cacheGBps < f.memGBps) || (k == 3 && f.nearCacheGBps < f.cacheGBps))
    c.notes.push_back("a nearer memory tier measured slower than a farther one");

  f.opOverheadUs = (c.copyChain.tiers.alphaUs - c.copy.tiers.alphaUs) / double(kCopyChainOps - 1);
  if (!(f.opOverheadUs >= 0)) {
    c.notes.push_back("the copy chain's alpha was below the copy's; per-op overhead clamped to 0");
    f.opOverheadUs = 0;
  }

  // Reductions, compared in the nearest tier (where compute rather than memory may limit them).
  const uint64_t nearTop = k >= 2 ? sizes[tiers.breaks[0] - 1] : sizes.back();
  const double measuredSlope = c.reduce.tiers.usPerByte[0];
  double simSlope =
      simulatedSlopeAt(c.reduce.plan, calibratedTopology(c.settings, f), std::max<uint64_t>(nearTop, 2));
  if (measuredSlope > simSlope * (1 + 1e-9)) {
    f.reduceGBps = 1e-3 * n / measuredSlope;
  } else {
    c.notes.push_back("reductions are no slower than the memory model predicts: reduce_gbps = 0 "
                      "(memory-bound)");
  }

  // Transfers: latency, then the pull rates (fitPullTiers). The ring shift's pulls read a value
  // written in the call. An unmodified input a rank read in earlier calls stays in its core's
  // cache while the call fits the cache (the copy's cache tier) and the rank has a core of its
  // own (oversubscribed ranks migrate between cores): then it is a local read.
  const int cores = c.settings.cores > 0 ? std::min(c.settings.cores, n) : n;
  if (cores == n) f.cleanPullBytes = k >= 2 ? f.cacheBytes : 0;
  // The empty ring shift's time is linear in the latency: overheads + hand-offs × latency (two
  // hand-offs under the handshake: the data's ready flag and the release coming back).
  f.latencyUs = 0;
  double overheads = simulateTimeUs(c.pointToPoint.plan, calibratedTopology(c.settings, f), 0);
  f.latencyUs = 1;
  double handOffs =
      simulateTimeUs(c.pointToPoint.plan, calibratedTopology(c.settings, f), 0) - overheads;
  f.latencyUs = (c.pointToPoint.tiers.alphaUs - overheads) / handOffs;
  if (f.latencyUs < 0) {
    c.notes.push_back("the ring shift's alpha (" + fmt(c.pointToPoint.tiers.alphaUs) +
                      " us) was below its ops' overheads; latency clamped to 0");
    f.latencyUs = 0;
  }
  if (log) log("fitting the pull bandwidth to the ring shift");
  fitPullTiers(c, cores, f);

  c.model = f;
  c.topology = calibratedTopology(c.settings, f);
}

void fitMeasurement(Measurement &m, FitWeighting weighting) {
  const std::string &what = m.what;
  std::vector<double> x(m.bytes.begin(), m.bytes.end());
  try {
    m.fit = fitAlphaBeta(x, m.timesUs, weighting);
    m.regimes = fitTwoRegimes(x, m.timesUs, weighting);
    m.tiers = fitTiers(x, m.timesUs, weighting);
  } catch (const std::invalid_argument &e) {
    throw std::runtime_error(what + ": " + e.what());
  }
  // "Grows": the slope adds more than rounding over the sweep (flat times fit a slope of ±1e-20).
  double largest = *std::max_element(m.timesUs.begin(), m.timesUs.end());
  auto grows = [&](double usPerByte) {
    return usPerByte * double(m.bytes.back()) > 1e-6 * std::fabs(largest);
  };
  if (!grows(m.fit.usPerByte) || !grows(m.regimes.memUsPerByte))
    throw std::runtime_error(what + ": the measured times do not grow with the "
                             "message size (fitted slope " + fmt(m.fit.usPerByte) +
                             " us/byte); measure larger sizes (--max-bytes)");
}

void selfCheck(Calibration &c) {
  std::vector<double> errors;
  for (Measurement *meas : c.measurements()) {
    meas->simulatedUs.clear();
    for (size_t i = 0; i < meas->bytes.size(); ++i) {
      double sim = simulateTimeUs(meas->plan, c.topology, meas->bytes[i]);
      meas->simulatedUs.push_back(sim);
      errors.push_back(std::fabs(sim - meas->timesUs[i]) / meas->timesUs[i]);
    }
  }
  c.selfCheckMedianError = median(errors);
}

int localCoreCount() { return localMachine(LocalMachineParams{}).numRanks(); }

void checkSettings(const CalibrationSettings &s) {
  if (s.ranks < 2)
    throw std::invalid_argument("--ranks must be at least 2 (transfers need two ranks), got " +
                                std::to_string(s.ranks));
  if (s.ranks > kMaxRanks)
    throw std::invalid_argument("--ranks must be at most " + std::to_string(kMaxRanks) +
                                ", got " + std::to_string(s.ranks));
  const Backend &backend = requireBackend(s.backend);
  if (backend.simulated())
    throw std::invalid_argument("calibrate measures a backend that runs plans; " + s.backend +
                                " only simulates them (its times come from the topology)");
  std::vector<uint64_t> distinct = s.sizes;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 2 || distinct.front() == 0)
    throw std::invalid_argument("the size range must give at least two distinct sizes > 0");
  if (s.warmup < 0) throw std::invalid_argument("--warmup must be >= 0");
  if (s.reps < 0) throw std::invalid_argument("--reps must be >= 0 (0: auto)");
  if (s.name.empty()) throw std::invalid_argument("--name must not be empty");
  if (s.cores < 0) throw std::invalid_argument("cores must be >= 0 (0: one per rank)");
}

Topology calibratedTopology(const CalibrationSettings &settings, const ModelFigures &f) {
  LocalMachineParams params;
  params.ranks = settings.ranks;
  Topology topo = localMachine(params);
  topo.name = settings.name;
  const double n = double(settings.ranks);
  for (Device &device : topo.devices) {
    double share = std::max<double>(1.0, double(device.ranks.size())) / n;
    device.memBandwidthGBps = f.memGBps * share;
    device.reduceGBps = f.reduceGBps * share;
    device.cacheBytes = f.cacheBytes * share;
    device.cacheBandwidthGBps = f.cacheBytes > 0 ? f.cacheGBps * share : 0;
    device.nearCacheBytes = f.nearCacheBytes * share;
    device.nearCacheBandwidthGBps = f.nearCacheBytes > 0 ? f.nearCacheGBps * share : 0;
    device.opOverheadUs = f.opOverheadUs;
    device.enginesPerRank = 1;  // a CPU rank is one thread: its channels take turns
    device.pullGBps = f.devicePullGBps * share;
    bool pullTier = f.pullGBps > 0 && f.pullCacheBytes > 0;
    device.pullMemoryGBps = pullTier ? f.devicePullMemoryGBps * share : 0;
  }
  if (f.pullGBps > 0) {
    // Shared memory: a receiver reads the sender's buffer in place, at most at the pull rate.
    topo.intraDevicePull = true;
    topo.intraDeviceBandwidthGBps = f.pullGBps;
  } else {
    // Pushes through the memory, which the memory model already charges: the private cap must
    // not bind before it (an op alone gets at most half the memory: read + write).
    topo.intraDeviceBandwidthGBps = std::max(
        {f.memGBps, f.cacheBytes > 0 ? f.cacheGBps : 0.0, f.nearCacheBytes > 0 ? f.nearCacheGBps : 0.0});
  }
  topo.intraDeviceLatencyUs = f.latencyUs;
  topo.intraDeviceHandshake = f.pullGBps > 0;
  // Compared with one device's footprint, like its cache: scaled by the largest device's share.
  size_t most = 1;
  for (const Device &device : topo.devices) most = std::max(most, device.ranks.size());
  topo.intraDeviceCleanPullBytes = f.pullGBps > 0 ? f.cleanPullBytes * double(most) / n : 0;
  if (f.pullGBps > 0 && f.pullCacheBytes > 0) {
    topo.intraDevicePullCacheBytes = f.pullCacheBytes * double(most) / n;
    topo.intraDevicePullMemoryGBps = f.pullMemoryGBps;
  }
  topo.features = Features{true, true, false};
  validateTopology(topo, settings.name);
  topo.finalize();
  return topo;
}

Calibration calibrateMachine(const CalibrationSettings &settings, const MeasureFn &measure,
                             const std::function<void(const std::string &)> &log) {
  checkSettings(settings);
  Calibration c;
  c.settings = settings;
  std::sort(c.settings.sizes.begin(), c.settings.sizes.end());
  c.settings.sizes.erase(std::unique(c.settings.sizes.begin(), c.settings.sizes.end()),
                         c.settings.sizes.end());
  const int n = settings.ranks;
  c.pointToPoint = measureOne("point-to-point", ringShiftPlan(n), c.settings, measure, log);
  c.copy = measureOne("copy", localCopyPlan(n), c.settings, measure, log);
  c.reduce = measureOne("reduce", localReducePlan(n), c.settings, measure, log);

  // The chain's units must be whole f32 elements: only sizes that split into kCopyChainOps.
  CalibrationSettings chain = c.settings;
  chain.sizes.clear();
  for (uint64_t bytes : c.settings.sizes)
    if (bytes % (4 * kCopyChainOps) == 0) chain.sizes.push_back(bytes);
  if (chain.sizes.size() < 2)
    throw std::runtime_error("the size range needs at least two sizes that are multiples of " +
                             std::to_string(4 * kCopyChainOps) + " bytes (the copy chain)");
  c.copyChain = measureOne("copy-chain", localCopyChainPlan(n, kCopyChainOps), chain, measure, log);

  // Physical figures (largest sizes, out of cache when there is a break): every rank copies M
  // bytes (read + write) / combines M bytes, all at once.
  c.copyTrafficGBps = 2.0 * n * c.copy.regimes.memBandwidthGBps;
  c.reduceCombineGBps = n * c.reduce.regimes.memBandwidthGBps;
  deriveModel(c, log);
  if (c.topology.devices.size() > 1)
    c.notes.push_back(std::to_string(c.topology.devices.size()) +
                      " NUMA devices: their links keep hwloc's estimates (not calibrated)");

  selfCheck(c);
  return c;
}

nlohmann::json calibrationToJson(const Calibration &c) {
  auto measurement = [](const Measurement &m) {
    nlohmann::json points = nlohmann::json::array();
    for (size_t i = 0; i < m.bytes.size(); ++i)
      points.push_back({{"bytes", m.bytes[i]},
                        {"measured_us", m.timesUs[i]},
                        {"fit_us", m.fit.predictUs(double(m.bytes[i]))},
                        {"residual", m.fit.relativeResiduals[i]},
                        {"simulated_us", i < m.simulatedUs.size() ? m.simulatedUs[i] : 0.0}});
    const TwoRegimeFit &r = m.regimes;
    nlohmann::json regimes = {{"alpha_us", r.cache.alphaUs},
                              {"cache_bandwidth_gbps", r.cache.bandwidthGBps},
                              {"mem_bandwidth_gbps", r.memBandwidthGBps},
                              {"break_bytes", r.hasBreak() ? m.bytes[r.breakIndex] : 0},
                              {"r2", r.r2},
                              {"median_abs_residual", r.medianAbsResidual},
                              {"max_abs_residual", r.maxAbsResidual}};
    nlohmann::json tierSlopes = nlohmann::json::array(), tierBreaks = nlohmann::json::array();
    for (size_t k = 0; k < m.tiers.regimes(); ++k) tierSlopes.push_back(m.tiers.bandwidthGBps(k));
    for (size_t b : m.tiers.breaks) tierBreaks.push_back(m.bytes[b]);
    nlohmann::json tiers = {{"alpha_us", m.tiers.alphaUs},
                            {"bandwidth_gbps", tierSlopes},
                            {"break_bytes", tierBreaks},
                            {"median_abs_residual", m.tiers.medianAbsResidual},
                            {"max_abs_residual", m.tiers.maxAbsResidual}};
    return nlohmann::json{{"plan", m.plan.algorithm},
                          {"two_regimes", regimes},
                          {"tiers", tiers},
                          {"alpha_us", m.fit.alphaUs},
                          {"bandwidth_gbps", m.fit.bandwidthGBps},
                          {"r2", m.fit.r2},
                          {"median_abs_residual", m.fit.medianAbsResidual},
                          {"max_abs_residual", m.fit.maxAbsResidual},
                          {"points", points}};
  };
  return {{"backend", c.settings.backend},
          {"ranks", c.settings.ranks},
          {"weighting", c.settings.weighting == FitWeighting::Relative ? "relative" : "absolute"},
          {"cores", c.settings.cores},
          {"point_to_point", measurement(c.pointToPoint)},
          {"copy", measurement(c.copy)},
          {"reduce", measurement(c.reduce)},
          {"copy_traffic_gbps", c.copyTrafficGBps},
          {"reduce_combine_gbps", c.reduceCombineGBps},
          {"copy_chain", measurement(c.copyChain)},
          {"model", {{"latency_us", c.model.latencyUs},
                     {"op_overhead_us", c.model.opOverheadUs},
                     {"pull_bandwidth_gbps", c.model.pullGBps},
                     {"device_pull_bandwidth_gbps", c.model.devicePullGBps},
                     {"clean_pull_local_bytes", c.model.cleanPullBytes},
                     {"pull_cache_bytes", c.model.pullCacheBytes},
                     {"pull_memory_bandwidth_gbps", c.model.pullMemoryGBps},
                     {"device_pull_memory_bandwidth_gbps", c.model.devicePullMemoryGBps},
                     {"mem_bandwidth_gbps", c.model.memGBps},
                     {"cache_bytes", c.model.cacheBytes},
                     {"cache_bandwidth_gbps", c.model.cacheGBps},
                     {"near_cache_bytes", c.model.nearCacheBytes},
                     {"near_cache_bandwidth_gbps", c.model.nearCacheGBps},
                     {"reduce_gbps", c.model.reduceGBps}}},
          {"self_check_median_error", c.selfCheckMedianError},
          {"notes", c.notes},
          {"topology_fingerprint", c.topology.fingerprint()}};
}

}  // namespace collplan::calibrate
