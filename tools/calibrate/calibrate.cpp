// calibrate: measures transfers, copies and reductions on the cpu backend, fits α and β by least
// squares, writes the calibrated topology, and optionally checks the simulator against real plans.
#include "runtime/core/Files.h"
#include "runtime/topology/Topology.h"
#include "tuner/measure/ByteSize.h"
#include "tuner/measure/PlanSource.h"
#include "tuner/calibrate/Accuracy.h"
#include "tuner/calibrate/Calibrate.h"
#include "tuner/calibrate/Refit.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::calibrate;

namespace {

struct Options {
  int ranks = 2;
  std::string backend = "cpu-threads";
  std::string minBytes = "8", maxBytes = "64M";
  int64_t stepFactor = 4;  ///< signed, so "-1" is refused rather than wrapped
  int warmup = 3, reps = 0;
  std::string output = "local-calibrated.json", name, fit = "relative", report, refit;
  bool fitGiven = false;  ///< --fit was passed (a refit otherwise keeps the report's weighting)
  bool verify = false, quiet = false;
  std::vector<std::string> verifyPlans;
};

/// Fails before any measurement when `path` cannot be written (missing or read-only folder, a
/// folder given as the file, a read-only file).
void checkWritable(const std::string &flag, const std::string &path) {
  if (path.empty()) throw std::invalid_argument(flag + ": empty file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw std::invalid_argument(path + ": is a folder, not a file");
    if (::access(path.c_str(), W_OK) != 0)
      throw std::invalid_argument(path + ": cannot write: permission denied");
    return;
  }
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw std::invalid_argument(path + ": cannot write: folder " + dir + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::invalid_argument(path + ": cannot write: folder " + dir + " is not writable");
}

std::string stemOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

void printMeasurement(const Measurement &m, const char *title) {
  std::printf("\n%s\n", title);
  std::printf("%12s %14s %12s %9s %14s\n", "size", "measured(us)", "fit(us)", "residual",
              "simulated(us)");
  for (size_t i = 0; i < m.bytes.size(); ++i)  // the two-regime fit, which the model uses
    std::printf("%12llu %14.2f %12.2f %+8.1f%% %14.2f\n", (unsigned long long)m.bytes[i],
                m.timesUs[i], m.regimes.predictUs(i, double(m.bytes[i])),
                100 * m.regimes.relativeResiduals[i], m.simulatedUs[i]);
  std::printf("  one line:    alpha = %.3f us   B = %.3f GB/s   R^2 = %.4f   |residual| median "
              "%.1f %%, max %.1f %% at %s\n",
              m.fit.alphaUs, m.fit.bandwidthGBps, m.fit.r2, 100 * m.fit.medianAbsResidual,
              100 * m.fit.maxAbsResidual, measure::formatBytes(m.bytes[m.fit.worstPoint]).c_str());
  const TwoRegimeFit &r = m.regimes;
  if (r.hasBreak())
    std::printf("  two regimes: alpha = %.3f us   B = %.3f GB/s below %s, %.3f GB/s from it   "
                "R^2 = %.4f   |residual| median %.1f %%, max %.1f %% at %s\n",
                r.cache.alphaUs, r.cache.bandwidthGBps,
                measure::formatBytes(m.bytes[r.breakIndex]).c_str(), r.memBandwidthGBps, r.r2,
                100 * r.medianAbsResidual, 100 * r.maxAbsResidual,
                measure::formatBytes(m.bytes[r.worstPoint]).c_str());
  else
    std::printf("  two regimes: no break fits better than one line\n");
  std::printf("  tiers (what the model uses): alpha = %.3f us  ", m.tiers.alphaUs);
  for (size_t k = 0; k < m.tiers.regimes(); ++k)
    std::printf(" %.3f GB/s%s%s", m.tiers.bandwidthGBps(k), k + 1 < m.tiers.regimes() ? " below " : "",
                k + 1 < m.tiers.regimes() ? measure::formatBytes(m.bytes[m.tiers.breaks[k]]).c_str() : "");
  std::printf("   |residual| median %.1f %%, max %.1f %%\n", 100 * m.tiers.medianAbsResidual,
              100 * m.tiers.maxAbsResidual);
}

void printAccuracy(const std::vector<AccuracyRow> &rows, const std::vector<AccuracyCase> &cases) {
  std::printf("\n# simulator accuracy on the calibrated topology: predicted / measured "
              "(measured results checked, #wrong 0)\n");
  std::printf("%-16s %12s %14s %14s %8s\n", "plan", "size", "measured(us)", "predicted(us)",
              "ratio");
  for (const AccuracyRow &row : rows)
    std::printf("%-16s %12llu %14.2f %14.2f %8.3f\n", row.label.c_str(),
                (unsigned long long)row.bytes, row.measuredUs, row.predictedUs, row.ratio);
  for (const AccuracyCase &c : cases)
    std::printf("median error %-16s %6.1f %%\n", c.label.c_str(), 100 * medianError(rows, c.label));
  std::printf("median error %-16s %6.1f %%\n", "(all)", 100 * medianError(rows));
}

/// Adds the allreduce plan in `file` to `cases` (label: the plan's algorithm, else the file's
/// stem) and records label → file in `files` for the report.
void addPlanCase(int ranks, const std::string &file, std::vector<AccuracyCase> &cases,
                 std::vector<std::pair<std::string, std::string>> &files) {
  Plan plan = measure::loadPlanFileForTool(file);
  if (plan.collective != CollectiveKind::AllReduce || plan.ranks != ranks)
    throw std::invalid_argument(file + ": --verify-plan needs an allreduce plan of " +
                                std::to_string(ranks) + " ranks (it is " +
                                std::string(toString(plan.collective)) + " on " +
                                std::to_string(plan.ranks) + ")");
  std::string label = plan.algorithm.empty() ? stemOf(file) : plan.algorithm;
  files.push_back({label, file});
  cases.push_back({label, std::move(plan)});
}

void printCalibration(const Calibration &c) {
  printMeasurement(c.pointToPoint, "point-to-point (ring shift: every rank sends M bytes to the next)");
  printMeasurement(c.copy, "copy (every rank copies M bytes, all at once)");
  printMeasurement(c.copyChain, "copy chain (the same copy as 8 ops of M/8 bytes: per-op overhead)");
  printMeasurement(c.reduce, "reduce (every rank adds M bytes of input into its output, all at once)");
  std::printf("\nmeasured (largest sizes): memcpy traffic %.2f GB/s (reads + writes, %d ranks "
              "at once); reductions %.2f GB/s combined\n",
              c.copyTrafficGBps, c.settings.ranks, c.reduceCombineGBps);
  const ModelFigures &m = c.model;
  std::printf("model: intra-device latency %.3f us, per-op overhead %.3f us, pull transfers at "
              "%.2f GB/s per receiver (%.2f GB/s for all pulls at once; 0: no shared limit), "
              "unmodified inputs pulled as local reads below a footprint of %.0f bytes;\n       memory %.2f GB/s, cache %.2f GB/s below a footprint of %.0f "
              "bytes, near cache %.2f GB/s below %.0f bytes (footprint: M x ranks x (2 + scratch "
              "units / units)), reduce %.2f GB/s%s\n",
              m.latencyUs, m.opOverheadUs, m.pullGBps, m.devicePullGBps,
              m.cleanPullBytes, m.memGBps, m.cacheGBps,
              m.cacheBytes, m.nearCacheGBps, m.nearCacheBytes, m.reduceGBps,
              m.reduceGBps == 0 ? " (memory-bound)" : "");
  if (m.pullCacheBytes > 0)
    std::printf("       beyond a footprint of %.0f bytes pulls at %.2f GB/s per receiver (%.2f "
                "GB/s for all pulls at once; 0: no shared limit)\n",
                m.pullCacheBytes, m.pullMemoryGBps, m.devicePullMemoryGBps);
  for (const std::string &note : c.notes) std::printf("note: %s\n", note.c_str());
  std::printf("simulator on the calibrated topology vs the calibration measurements: median "
              "error %.1f %%\n",
              100 * c.selfCheckMedianError);
}

void writeJson(const std::string &path, const nlohmann::json &value, const char *what) {
  try {
    writeWholeFile(path, value.dump(2) + "\n");
  } catch (const FileError &e) {
    throw std::runtime_error(std::string(e.what()) + " (the " + what + ")");
  }
}

void writeTopology(const Options &o, const Calibration &c) {
  writeJson(o.output, topologyToJson(c.topology), "topology");
  std::printf("wrote %s: %zu device(s), %d ranks, fingerprint %s\n", o.output.c_str(),
              c.topology.devices.size(), c.topology.numRanks(), c.topology.fingerprint().c_str());
}

nlohmann::json reportJson(const Options &o, const Calibration &c,
                          const std::vector<AccuracyRow> &rows,
                          const std::vector<std::pair<std::string, std::string>> &files) {
  nlohmann::json report = {{"calibration", calibrationToJson(c)}, {"topology_file", o.output}};
  if (!rows.empty()) {
    report["accuracy"] = accuracyToJson(rows);
    report["accuracy_median_error"] = medianError(rows);
  }
  if (!files.empty()) {
    nlohmann::json plans = nlohmann::json::array();
    for (const auto &[label, file] : files) plans.push_back({{"label", label}, {"file", file}});
    report["verify_plans"] = plans;
  }
  if (!o.refit.empty()) report["refit_of"] = o.refit;
  return report;
}

FitWeighting parseFit(const std::string &fit) {
  if (fit == "relative") return FitWeighting::Relative;
  if (fit == "absolute") return FitWeighting::Absolute;
  throw std::invalid_argument("--fit: unknown value \"" + fit + "\" (relative, absolute)");
}

/// --refit: the model re-derived from a report's stored probe measurements, and its verify rows
/// re-predicted; nothing is measured.
int runRefit(const Options &o) {
  StoredReport stored = loadStoredReport(o.refit);
  if (o.fitGiven) stored.calibration.settings.weighting = parseFit(o.fit);
  checkWritable("--output", o.output);
  if (!o.report.empty()) checkWritable("--report", o.report);
  // Verify plans: built in, --verify-plan files, then the files the report recorded for labels
  // not given on the command line.
  const int ranks = stored.calibration.settings.ranks;
  std::vector<AccuracyCase> cases = builtInAccuracyCases(ranks);
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string &file : o.verifyPlans) addPlanCase(ranks, file, cases, files);
  for (const auto &[label, file] : stored.planFiles) {
    bool given = false;
    for (const AccuracyCase &c : cases) given = given || c.label == label;
    if (!given) addPlanCase(ranks, file, cases, files);
  }
  std::string coresNote;
  if (stored.calibration.settings.cores == 0) {
    stored.calibration.settings.cores = localCoreCount();
    coresNote = "the report does not record the core count; assumed this machine's (" +
                std::to_string(stored.calibration.settings.cores) + ")";
  }
  Calibration c = refitCalibration(stored, o.name.empty() ? stemOf(o.output) : o.name);
  if (!coresNote.empty()) c.notes.insert(c.notes.begin(), coresNote);
  std::printf("# calibrate --refit %s: %s, %d ranks, %zu sizes, stored measurements (nothing "
              "measured)\n",
              o.refit.c_str(), c.settings.backend.c_str(), c.settings.ranks,
              c.settings.sizes.size());
  printCalibration(c);
  writeTopology(o, c);
  std::vector<AccuracyRow> rows = repredictAccuracy(stored.accuracy, cases, c.topology, o.refit);
  if (!rows.empty()) printAccuracy(rows, cases);
  if (!o.report.empty()) writeJson(o.report, reportJson(o, c, rows, files), "report");
  return 0;
}

int run(const Options &o) {
  if (!o.refit.empty()) return runRefit(o);
  CalibrationSettings s;
  s.ranks = o.ranks;
  s.backend = o.backend;
  s.warmup = o.warmup;
  s.reps = o.reps;
  s.weighting = parseFit(o.fit);
  s.sizes = measure::sizeSweep(measure::parseByteSizeOption("--min-bytes", o.minBytes),
                             measure::parseByteSizeOption("--max-bytes", o.maxBytes), o.stepFactor);
  s.name = o.name.empty() ? stemOf(o.output) : o.name;
  s.cores = localCoreCount();
  checkSettings(s);
  checkWritable("--output", o.output);
  if (!o.report.empty()) checkWritable("--report", o.report);

  std::vector<AccuracyCase> cases;
  std::vector<std::pair<std::string, std::string>> files;
  if (o.verify || !o.verifyPlans.empty()) {
    cases = builtInAccuracyCases(o.ranks);
    for (const std::string &file : o.verifyPlans) addPlanCase(o.ranks, file, cases, files);
  }

  auto log = [&](const std::string &line) {
    if (!o.quiet) std::fprintf(stderr, "calibrate: %s\n", line.c_str());
  };
  MeasureFn measure = backendMeasure(s, o.quiet ? std::function<void(const std::string &)>{}
                                                : [&](const std::string &l) { log("  " + l); });
  Calibration c = calibrateMachine(s, measure, log);

  std::printf("# calibrate: %s, %d ranks on %d cores, %zu sizes %s - %s (factor %llu), %d "
              "warm-up, %s timed calls; time = median of the slowest rank\n",
              s.backend.c_str(), s.ranks, s.cores, c.settings.sizes.size(),
              measure::formatBytes(c.settings.sizes.front()).c_str(),
              measure::formatBytes(c.settings.sizes.back()).c_str(),
              (unsigned long long)o.stepFactor, s.warmup,
              s.reps ? std::to_string(s.reps).c_str() : "auto");
  std::printf("# fit: T(M) = alpha + M/B by least squares, %s\n",
              s.weighting == FitWeighting::Relative ? "weighted by 1/T^2 (relative residuals)"
                                                    : "unweighted (absolute residuals)");
  printCalibration(c);
  writeTopology(o, c);

  std::vector<AccuracyRow> rows;
  if (!cases.empty()) {
    log("checking the simulator against measured plans");
    rows = measureAccuracy(cases, c.topology, c.settings.sizes, measure);
    printAccuracy(rows, cases);
  }
  if (!o.report.empty()) writeJson(o.report, reportJson(o, c, rows, files), "report");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"calibrate: measure point-to-point transfers, memory copies and reductions on "
               "the cpu backend, fit latency and bandwidth by least squares, and write the "
               "calibrated topology for the simulator"};
  Options o;
  app.add_option("--ranks,-n", o.ranks, "Ranks of the calibrated topology (>= 2)")->capture_default_str();
  app.add_option("--backend", o.backend, "cpu-threads or cpu-shm")->capture_default_str();
  app.add_option("--min-bytes,-b", o.minBytes, "Smallest message (K, M, G suffixes)")->capture_default_str();
  app.add_option("--max-bytes,-e", o.maxBytes, "Largest message")->capture_default_str();
  app.add_option("--step-factor,-f", o.stepFactor, "Multiply the size by this between points")->capture_default_str();
  app.add_option("--warmup,-w", o.warmup, "Untimed calls per size")->capture_default_str();
  app.add_option("--reps", o.reps, "Timed calls per size (0: auto)")->capture_default_str();
  app.add_option("--fit", o.fit, "Least-squares weighting: relative (1/T^2) or absolute")->capture_default_str();
  app.add_option("--output,-o", o.output, "Topology file to write")->capture_default_str();
  app.add_option("--name", o.name, "Topology name (default: the output file's stem)");
  app.add_flag("--verify", o.verify,
               "Then measure the built-in ring and direct allreduce and print the simulator's "
               "predicted / measured ratios");
  app.add_option("--verify-plan", o.verifyPlans,
                 "Also check this allreduce plan file (repeatable; implies --verify)");
  app.add_option("--report", o.report, "Write the fits (and accuracy) as JSON to this file");
  app.add_flag("--quiet,-q", o.quiet, "No progress on stderr");
  CLI::Option *refit = app.add_option(
      "--refit", o.refit,
      "Measure nothing: re-fit the model from the probe measurements stored in this --report "
      "file, write the topology, and re-predict the report's verify plans (ranks, backend and "
      "sizes come from the report)");
  for (const char *measuring : {"--ranks", "--backend", "--min-bytes", "--max-bytes",
                                "--step-factor", "--warmup", "--reps", "--verify"})
    refit->excludes(app.get_option(measuring));
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;
  o.fitGiven = app.get_option("--fit")->count() > 0;
  try {
    return run(o);
  } catch (const std::exception &e) {  // settings, PlanError, TopologyError, SimError, RuntimeError
    std::fprintf(stderr, "calibrate: %s\n", e.what());
  }
  return 1;
}
