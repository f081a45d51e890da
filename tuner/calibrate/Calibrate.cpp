// calibrate(): measure the calibration plans, fit them, and solve the topology's model figures
// with the simulator so that it reproduces the measurements.
#include "tuner/calibrate/Calibrate.h"

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
  std::vector<double> x(m.bytes.begin(), m.bytes.end());
  try {
    m.fit = fitAlphaBeta(x, m.timesUs, settings.weighting);
    m.regimes = fitTwoRegimes(x, m.timesUs, settings.weighting);
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
  return m;
}

/// Simulated time per message byte of `plan` on `topo`, from two large sizes.
double simulatedSlope(const Plan &plan, const Topology &topo, const std::vector<uint64_t> &sizes) {
  uint64_t hi = std::max<uint64_t>(sizes.back(), 2 << 20), lo = hi / 2;
  return (simulateTimeUs(plan, topo, hi) - simulateTimeUs(plan, topo, lo)) / double(hi - lo);
}

}  // namespace

void checkSettings(const CalibrationSettings &s) {
  if (s.ranks < 2)
    throw std::invalid_argument("--ranks must be at least 2 (transfers need two ranks), got " +
                                std::to_string(s.ranks));
  if (s.ranks > kMaxRanks)
    throw std::invalid_argument("--ranks must be at most " + std::to_string(kMaxRanks) +
                                ", got " + std::to_string(s.ranks));
  if (s.backend != "cpu-threads" && s.backend != "cpu-shm")
    throw std::invalid_argument("unknown backend '" + s.backend +
                                "' (calibrate measures cpu-threads or cpu-shm)");
  std::vector<uint64_t> distinct = s.sizes;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 2 || distinct.front() == 0)
    throw std::invalid_argument("the size range must give at least two distinct sizes > 0");
  if (s.warmup < 0) throw std::invalid_argument("--warmup must be >= 0");
  if (s.reps < 0) throw std::invalid_argument("--reps must be >= 0 (0: auto)");
  if (s.name.empty()) throw std::invalid_argument("--name must not be empty");
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
  }
  // Ranks of one device talk through its memory, which the memory model already charges; the
  // private cap must not bind before it (an op alone gets at most half the memory: read + write).
  topo.intraDeviceBandwidthGBps = std::max(f.memGBps, f.cacheBytes > 0 ? f.cacheGBps : 0.0);
  topo.intraDeviceLatencyUs = f.latencyUs;
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
  const std::vector<uint64_t> &sizes = c.settings.sizes;
  c.pointToPoint = measureOne("point-to-point", ringShiftPlan(n), c.settings, measure, log);
  c.copy = measureOne("copy", localCopyPlan(n), c.settings, measure, log);
  c.reduce = measureOne("reduce", localReducePlan(n), c.settings, measure, log);

  // Physical figures (largest sizes, out of cache when there is a break): every rank copies M
  // bytes (read + write) / combines M bytes, all at once.
  c.copyTrafficGBps = 2.0 * n * c.copy.regimes.memBandwidthGBps;
  c.reduceCombineGBps = n * c.reduce.regimes.memBandwidthGBps;

  // Model figures, solved with the simulator itself so that it reproduces the transfer fit:
  // latency = α; memory (and cache) bandwidth such that the simulated slope of the ring shift
  // equals the measured out-of-cache (in-cache) slope. Simulated rates scale with the memory
  // bandwidth, so one simulation at a reference bandwidth gives the factor. The figures are
  // effective ones: the simulator charges a transfer at both ends, while the cpu executor reads
  // a peer's buffer once.
  const TwoRegimeFit &p2p = c.pointToPoint.regimes;
  ModelFigures f;
  f.latencyUs = p2p.cache.alphaUs;
  if (f.latencyUs < 0) {
    c.notes.push_back("the fitted point-to-point latency was negative (" + fmt(f.latencyUs) +
                      " us); clamped to 0");
    f.latencyUs = 0;
  }
  if (!(p2p.cache.usPerByte > 0) || !(p2p.memUsPerByte > 0))
    throw std::runtime_error("point-to-point: the measured times do not grow with the "
                             "message size in each regime; measure a wider size range");
  const double reference = 1000;
  f.memGBps = reference;
  Topology trial = calibratedTopology(c.settings, f);
  const double scale = reference * simulatedSlope(c.pointToPoint.plan, trial, sizes);
  f.memGBps = scale / p2p.memUsPerByte;
  if (p2p.hasBreak()) {
    // The break lies between two measured sizes: take their geometric mean's footprint.
    double lo = double(sizes[p2p.breakIndex - 1]), hi = double(sizes[p2p.breakIndex]);
    f.cacheBytes = 2.0 * n * std::sqrt(lo * hi);
    f.cacheGBps = scale / p2p.cache.usPerByte;
    if (f.cacheGBps < f.memGBps)
      c.notes.push_back("the in-cache transfers were slower than the out-of-cache ones");
  }
  // Reductions: the reduce unit gets the measured combine rate when it is slower than what the
  // memory model alone gives (in cache, where compute rather than memory limits the kernel).
  const TwoRegimeFit &red = c.reduce.regimes;
  const double measuredSlope = red.cache.usPerByte;  // the whole line when there is no break
  ModelFigures memoryOnly;
  memoryOnly.latencyUs = f.latencyUs;
  memoryOnly.memGBps = f.cacheBytes > 0 ? f.cacheGBps : f.memGBps;
  double simSlope =
      simulatedSlope(c.reduce.plan, calibratedTopology(c.settings, memoryOnly), sizes);
  if (measuredSlope > 0 && measuredSlope > simSlope * (1 + 1e-9)) {
    f.reduceGBps = 1e-3 * n / measuredSlope;
  } else {
    c.notes.push_back("reductions are no slower than the memory model predicts: reduce_gbps = 0 "
                      "(memory-bound)");
  }
  c.latencyUs = f.latencyUs;
  c.modelMemGBps = f.memGBps;
  c.modelReduceGBps = f.reduceGBps;
  c.cacheBytes = f.cacheBytes;
  c.modelCacheGBps = f.cacheGBps;
  c.topology = calibratedTopology(c.settings, f);
  if (c.topology.devices.size() > 1)
    c.notes.push_back(std::to_string(c.topology.devices.size()) +
                      " NUMA devices: their links keep hwloc's estimates (not calibrated)");

  std::vector<double> errors;
  for (Measurement *meas : {&c.pointToPoint, &c.copy, &c.reduce}) {
    meas->simulatedUs.clear();
    for (size_t i = 0; i < meas->bytes.size(); ++i) {
      double sim = simulateTimeUs(meas->plan, c.topology, meas->bytes[i]);
      meas->simulatedUs.push_back(sim);
      errors.push_back(std::fabs(sim - meas->timesUs[i]) / meas->timesUs[i]);
    }
  }
  c.selfCheckMedianError = median(errors);
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
    return nlohmann::json{{"plan", m.plan.algorithm},
                          {"two_regimes", regimes},
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
          {"point_to_point", measurement(c.pointToPoint)},
          {"copy", measurement(c.copy)},
          {"reduce", measurement(c.reduce)},
          {"copy_traffic_gbps", c.copyTrafficGBps},
          {"reduce_combine_gbps", c.reduceCombineGBps},
          {"model", {{"latency_us", c.latencyUs},
                     {"mem_bandwidth_gbps", c.modelMemGBps},
                     {"cache_bytes", c.cacheBytes},
                     {"cache_bandwidth_gbps", c.modelCacheGBps},
                     {"reduce_gbps", c.modelReduceGBps}}},
          {"self_check_median_error", c.selfCheckMedianError},
          {"notes", c.notes},
          {"topology_fingerprint", c.topology.fingerprint()}};
}

}  // namespace collplan::calibrate
