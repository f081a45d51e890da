// calibrate --refit: a report read back gives the same model and predictions without measuring;
// a missing or malformed report is an error naming the file and the field.
#include "tuner/calibrate/Refit.h"

#include "RunCalibrateTool.h"

#include "runtime/plan/DefaultPlans.h"
#include "runtime/sim/Simulator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace collplan;
using namespace collplan::calibrate;
using test::runCalibrateTool;
using test::ToolResult;

namespace {

/// Every plan "measured" by simulating it on a known calibrated topology (4 ranks on 2 cores).
struct Fixture {
  CalibrationSettings settings;
  Topology truth;
  MeasureFn measure;
  Calibration calibration;
  std::vector<AccuracyRow> rows;
  nlohmann::json report;

  Fixture() {
    settings.ranks = 4;
    settings.cores = 2;
    for (uint64_t m = 8; m <= (16u << 20); m *= 4) settings.sizes.push_back(m);
    ModelFigures f;
    f.latencyUs = 1;
    f.opOverheadUs = 0.02;
    f.pullGBps = 8;
    f.devicePullGBps = 16;
    f.memGBps = 200;  // the pulls, not the memory, limit the ring shift
    truth = calibratedTopology(settings, f);
    measure = [this](const Plan &plan, const std::vector<uint64_t> &sizes) {
      std::vector<double> t;
      for (uint64_t m : sizes) t.push_back(simulateTimeUs(plan, truth, m));
      return t;
    };
    calibration = calibrateMachine(settings, measure);
    rows = measureAccuracy(builtInAccuracyCases(4), calibration.topology, settings.sizes, measure);
    report = {{"calibration", calibrationToJson(calibration)}, {"accuracy", accuracyToJson(rows)}};
  }
};

std::string errorOf(const nlohmann::json &report) {
  try {
    parseStoredReport(report, "old.json");
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "(no error)";
}

std::string tempPath(const std::string &name) {
  return "/tmp/collplan-refit-test-" + std::to_string(::getpid()) + "-" + name;
}

}  // namespace

TEST(Refit, SameMeasurementsGiveTheSameModelAndPredictions) {
  Fixture fx;
  StoredReport stored = parseStoredReport(fx.report, "report.json");
  EXPECT_EQ(stored.calibration.settings.ranks, 4);
  EXPECT_EQ(stored.calibration.settings.cores, 2);
  ASSERT_EQ(stored.accuracy.size(), fx.rows.size());
  Calibration c = refitCalibration(stored, "refit");
  const ModelFigures &a = c.model, &b = fx.calibration.model;
  EXPECT_DOUBLE_EQ(a.latencyUs, b.latencyUs);
  EXPECT_DOUBLE_EQ(a.opOverheadUs, b.opOverheadUs);
  EXPECT_DOUBLE_EQ(a.pullGBps, b.pullGBps);
  EXPECT_DOUBLE_EQ(a.devicePullGBps, b.devicePullGBps);
  EXPECT_DOUBLE_EQ(a.memGBps, b.memGBps);
  EXPECT_DOUBLE_EQ(a.reduceGBps, b.reduceGBps);
  EXPECT_EQ(c.topology.name, "refit");
  // The measured rows are kept and re-predicted on the refitted topology.
  std::vector<AccuracyRow> again =
      repredictAccuracy(stored.accuracy, builtInAccuracyCases(4), c.topology, "report.json");
  ASSERT_EQ(again.size(), fx.rows.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].label, fx.rows[i].label);
    EXPECT_DOUBLE_EQ(again[i].measuredUs, fx.rows[i].measuredUs);
    EXPECT_NEAR(again[i].predictedUs / fx.rows[i].predictedUs, 1.0, 1e-12);
  }
  // The model's figures are recovered from the stored points (the truth's pull figures).
  EXPECT_NEAR(a.pullGBps / 8, 1.0, 1e-6);
  EXPECT_NEAR(a.devicePullGBps / 16, 1.0, 1e-6);
}

TEST(Refit, MissingAndMalformedFieldsAreNamed) {
  Fixture fx;
  nlohmann::json noCopy = fx.report;
  noCopy["calibration"].erase("copy");
  EXPECT_EQ(errorOf(noCopy), "old.json: field 'calibration.copy': missing");
  nlohmann::json noCalibration = nlohmann::json::object();
  EXPECT_EQ(errorOf(noCalibration), "old.json: field 'report.calibration': missing");
  nlohmann::json text = fx.report;
  text["calibration"]["reduce"]["points"][3]["measured_us"] = "fast";
  EXPECT_EQ(errorOf(text), "old.json: field 'calibration.reduce.points[3].measured_us': expected "
                           "a number, got string");
  nlohmann::json zero = fx.report;
  nlohmann::json huge = fx.report;
  huge["calibration"]["copy"]["points"][1]["measured_us"] = 1e300;
  EXPECT_NE(errorOf(huge).find("'calibration.copy.points[1].measured_us': expected a time of at "
                               "most 1e12 us, got 1e+300"),
            std::string::npos)
      << errorOf(huge);
  zero["calibration"]["copy"]["points"][0]["measured_us"] = 0;
  EXPECT_NE(errorOf(zero).find("'calibration.copy.points[0].measured_us': expected a positive"),
            std::string::npos);
  nlohmann::json order = fx.report;
  order["calibration"]["point_to_point"]["points"][2]["bytes"] = 8;
  EXPECT_NE(errorOf(order).find("'calibration.point_to_point.points[2].bytes': sizes must be "
                                "ascending"),
            std::string::npos);
  nlohmann::json ranks = fx.report;
  ranks["calibration"]["ranks"] = 1;
  EXPECT_NE(errorOf(ranks).find("'calibration.ranks': expected an integer in 2..1024"),
            std::string::npos);
  nlohmann::json row = fx.report;
  row["accuracy"][0].erase("measured_us");
  EXPECT_EQ(errorOf(row), "old.json: field 'accuracy[0].measured_us': missing");
  nlohmann::json onePoint = fx.report;
  onePoint["calibration"]["copy_chain"]["points"] = nlohmann::json::array();
  EXPECT_NE(errorOf(onePoint).find("'calibration.copy_chain.points': expected an array of at "
                                   "least two"),
            std::string::npos);
}

TEST(Refit, AVerifyPlanWithoutItsPlanIsAnError) {
  Fixture fx;
  StoredReport stored = parseStoredReport(fx.report, "old.json");
  stored.accuracy[0].label = "one-shot";
  Calibration c = refitCalibration(stored, "x");
  try {
    repredictAccuracy(stored.accuracy, builtInAccuracyCases(4), c.topology, "old.json");
    FAIL() << "expected an error";
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "old.json: field 'accuracy[0].plan': no plan named \"one-shot\" (ring and two-shot "
              "are built in; pass the others' plan files with --verify-plan)");
  }
}

TEST(Refit, UnreadableOrNonJsonFile) {
  try {
    loadStoredReport("/nonexistent-dir/report.json");
    FAIL();
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent-dir/report.json: cannot open: No such file or directory");
  }
  std::string path = tempPath("garbage.json");
  std::ofstream(path) << "{ not json";
  try {
    loadStoredReport(path);
    FAIL();
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": not valid JSON", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
}

TEST(RefitTool, WritesTheTopologyAndAReportWithoutMeasuring) {
  Fixture fx;
  std::string old = tempPath("old.json"), topo = tempPath("topo.json"),
              fresh = tempPath("new.json");
  std::ofstream(old) << fx.report.dump();
  ToolResult r = runCalibrateTool("--refit " + old + " -o " + topo + " --report " + fresh);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("stored measurements (nothing measured)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("median error (all)"), std::string::npos) << r.output;
  Topology written = loadTopologyFile(topo);
  EXPECT_EQ(written.numRanks(), 4);
  EXPECT_EQ(written.fingerprint(), fx.calibration.topology.fingerprint());
  nlohmann::json report;
  std::ifstream(fresh) >> report;
  EXPECT_EQ(report["refit_of"], old);
  EXPECT_EQ(report["accuracy"].size(), fx.rows.size());
  // The new report can be refitted in turn.
  StoredReport again = loadStoredReport(fresh);
  EXPECT_EQ(again.accuracy.size(), fx.rows.size());
  for (const std::string &p : {old, topo, fresh}) std::remove(p.c_str());
}

TEST(RefitTool, ErrorsNameTheReportOrTheConflict) {
  ToolResult r = runCalibrateTool("--refit /nonexistent-dir/old.json -o " + tempPath("t.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("calibrate: /nonexistent-dir/old.json: cannot open: No such file"),
            std::string::npos)
      << r.output;
  r = runCalibrateTool("--refit x.json --ranks 4 -o " + tempPath("t.json"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--ranks excludes --refit"), std::string::npos) << r.output;
}
