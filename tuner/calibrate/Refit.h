// Offline refit: rebuild a calibration from the probe measurements a calibrate report stored.
#pragma once

#include "tuner/calibrate/Accuracy.h"
#include "tuner/calibrate/Calibrate.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace collplan::calibrate {

/// A calibrate --report read back: the calibration probes' measured points (fits and the model
/// are re-derived, never read) and the verify plans' measured rows.
struct StoredReport {
  Calibration calibration;          ///< settings and measurements; fits empty until refit
  std::vector<AccuracyRow> accuracy;  ///< measured rows; predictedUs and ratio unset
  /// label → plan file recorded by calibrate for verify plans that are not built in.
  std::map<std::string, std::string> planFiles;
};

/// Parses a report (`origin` names it in errors). Throws std::runtime_error "ORIGIN: field
/// 'calibration.copy.points[3].measured_us': REASON" for a missing or malformed field.
StoredReport parseStoredReport(const nlohmann::json &report, const std::string &origin);

/// Reads and parses a report file; errors name the file (missing, unreadable, not JSON).
StoredReport loadStoredReport(const std::string &path);

/// Re-fits every stored measurement, derives the model and topology with the current model
/// (deriveModel) and runs the self-check. `name` is the topology's name. No measurement.
Calibration refitCalibration(const StoredReport &stored, const std::string &name);

/// The stored accuracy rows re-predicted on `topology`: each row's plan is found by label in
/// `cases`. Throws std::runtime_error naming the report and label when a row has no plan.
std::vector<AccuracyRow> repredictAccuracy(const std::vector<AccuracyRow> &stored,
                                           const std::vector<AccuracyCase> &cases,
                                           const Topology &topology, const std::string &origin);

}  // namespace collplan::calibrate
