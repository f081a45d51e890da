// Reads a calibrate report back and re-derives the model from its stored probe measurements.
#include "tuner/calibrate/Refit.h"

#include "runtime/core/Files.h"
#include "runtime/core/JsonDocument.h"
#include "runtime/sim/Simulator.h"
#include "tuner/calibrate/CalibrationPlans.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace collplan::calibrate {
namespace {

/// A position in the report, for messages: "calibration.copy.points[3].bytes".
struct Field {
  const std::string &origin;
  std::string path;

  [[noreturn]] void fail(const std::string &reason) const {
    throw std::runtime_error(origin + ": field '" + path + "': " + reason);
  }
  Field operator/(const std::string &key) const { return {origin, path + "." + key}; }
  Field operator[](size_t index) const {
    return {origin, path + "[" + std::to_string(index) + "]"};
  }
};

const nlohmann::json &require(const nlohmann::json &object, const Field &at, const char *key) {
  if (!object.is_object()) at.fail("expected an object");
  auto it = object.find(key);
  if (it == object.end()) (at / key).fail("missing");
  return *it;
}

double requirePositive(const nlohmann::json &value, const Field &at) {
  if (!value.is_number()) at.fail("expected a number, got " + std::string(value.type_name()));
  double v = value.get<double>();
  if (!std::isfinite(v) || v <= 0) at.fail("expected a positive number, got " + value.dump());
  // 11 days in µs: beyond it the fit's weights 1/t^2 underflow.
  if (v > 1e12) at.fail("expected a time of at most 1e12 us, got " + value.dump());
  return v;
}

uint64_t requireBytes(const nlohmann::json &value, const Field &at) {
  bool positive = value.is_number_unsigned()  ? value.get<uint64_t>() > 0
                  : value.is_number_integer() ? value.get<int64_t>() > 0
                                              : false;
  if (!positive) at.fail("expected a positive integer number of bytes, got " + value.dump());
  return value.get<uint64_t>();
}

std::string requireString(const nlohmann::json &value, const Field &at) {
  if (!value.is_string()) at.fail("expected a string, got " + std::string(value.type_name()));
  return value.get<std::string>();
}

/// The measured points of one probe: (bytes, measured_us), ascending distinct sizes.
Measurement parseMeasurement(const nlohmann::json &calibration, const Field &at, const char *key,
                             const std::string &what, Plan plan) {
  Field here = at / key;
  const nlohmann::json &points = require(require(calibration, at, key), here, "points");
  Field pointsAt = here / "points";
  if (!points.is_array() || points.size() < 2)
    pointsAt.fail("expected an array of at least two measured points");
  Measurement m;
  m.what = what;
  m.plan = std::move(plan);
  for (size_t i = 0; i < points.size(); ++i) {
    uint64_t bytes = requireBytes(require(points[i], pointsAt[i], "bytes"), pointsAt[i] / "bytes");
    if (!m.bytes.empty() && bytes <= m.bytes.back())
      (pointsAt[i] / "bytes").fail("sizes must be ascending and distinct (" +
                                   std::to_string(bytes) + " after " +
                                   std::to_string(m.bytes.back()) + ")");
    m.bytes.push_back(bytes);
    m.timesUs.push_back(requirePositive(require(points[i], pointsAt[i], "measured_us"),
                                        pointsAt[i] / "measured_us"));
  }
  return m;
}

}  // namespace

StoredReport parseStoredReport(const nlohmann::json &report, const std::string &origin) {
  Field root{origin, "calibration"};
  if (!report.is_object()) throw std::runtime_error(origin + ": expected a JSON object (a calibrate --report)");
  const nlohmann::json &cal = require(report, Field{origin, "report"}, "calibration");
  StoredReport stored;
  Calibration &c = stored.calibration;
  const nlohmann::json &ranks = require(cal, root, "ranks");
  if (!ranks.is_number_integer() || ranks.get<int64_t>() < 2 || ranks.get<int64_t>() > 1024)
    (root / "ranks").fail("expected an integer in 2..1024, got " + ranks.dump());
  c.settings.ranks = int(ranks.get<int64_t>());
  c.settings.backend = requireString(require(cal, root, "backend"), root / "backend");
  std::string weighting = requireString(require(cal, root, "weighting"), root / "weighting");
  if (weighting != "relative" && weighting != "absolute")
    (root / "weighting").fail("expected \"relative\" or \"absolute\", got \"" + weighting + "\"");
  c.settings.weighting = weighting == "relative" ? FitWeighting::Relative : FitWeighting::Absolute;
  if (auto it = cal.find("cores"); it != cal.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1)
      (root / "cores").fail("expected a positive integer, got " + it->dump());
    c.settings.cores = int(it->get<int64_t>());
  }

  const int n = c.settings.ranks;
  c.pointToPoint = parseMeasurement(cal, root, "point_to_point", "point-to-point", ringShiftPlan(n));
  c.copy = parseMeasurement(cal, root, "copy", "copy", localCopyPlan(n));
  c.copyChain = parseMeasurement(cal, root, "copy_chain", "copy-chain",
                                 localCopyChainPlan(n, kCopyChainOps));
  c.reduce = parseMeasurement(cal, root, "reduce", "reduce", localReducePlan(n));
  c.settings.sizes = c.pointToPoint.bytes;

  if (auto it = report.find("accuracy"); it != report.end()) {
    Field at{origin, "accuracy"};
    if (!it->is_array()) at.fail("expected an array of measured rows");
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json &row = (*it)[i];
      AccuracyRow r;
      r.label = requireString(require(row, at[i], "plan"), at[i] / "plan");
      r.bytes = requireBytes(require(row, at[i], "bytes"), at[i] / "bytes");
      r.measuredUs = requirePositive(require(row, at[i], "measured_us"), at[i] / "measured_us");
      stored.accuracy.push_back(r);
    }
  }
  if (auto it = report.find("verify_plans"); it != report.end()) {
    Field at{origin, "verify_plans"};
    if (!it->is_array()) at.fail("expected an array of {label, file}");
    for (size_t i = 0; i < it->size(); ++i)
      stored.planFiles[requireString(require((*it)[i], at[i], "label"), at[i] / "label")] =
          requireString(require((*it)[i], at[i], "file"), at[i] / "file");
  }
  return stored;
}

StoredReport loadStoredReport(const std::string &path) {
  const std::string text = readWholeFile(path);
  nlohmann::json report;
  try {
    report = parseJsonDocument(text, /*cbor=*/false);
  } catch (const JsonSyntaxError &e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return parseStoredReport(report, path);
}

Calibration refitCalibration(const StoredReport &stored, const std::string &name) {
  Calibration c = stored.calibration;
  c.settings.name = name;
  checkSettings(c.settings);
  for (Measurement *m : c.measurements()) fitMeasurement(*m, c.settings.weighting);
  deriveModel(c);
  selfCheck(c);
  return c;
}

std::vector<AccuracyRow> repredictAccuracy(const std::vector<AccuracyRow> &stored,
                                           const std::vector<AccuracyCase> &cases,
                                           const Topology &topology, const std::string &origin) {
  std::vector<AccuracyRow> rows;
  for (size_t i = 0; i < stored.size(); ++i) {
    const AccuracyCase *match = nullptr;
    for (const AccuracyCase &c : cases)
      if (c.label == stored[i].label) match = &c;
    if (!match)
      throw std::runtime_error(origin + ": field 'accuracy[" + std::to_string(i) + "].plan': no plan "
                               "named \"" + stored[i].label + "\" (ring and two-shot are built in; "
                               "pass the others' plan files with --verify-plan)");
    AccuracyRow row = stored[i];
    row.predictedUs = simulateTimeUs(match->plan, topology, row.bytes);
    row.ratio = row.predictedUs / row.measuredUs;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace collplan::calibrate
