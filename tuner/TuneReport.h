// The tuner's report: the terminal table per collective, and the CSV, JSON and SVG files.
#pragma once

#include "tuner/Tuner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace collplan::tune {

/// Header (topology, backend, cost model, variant counts) and per table one row per bucket:
/// range, winner, the size its times are from, time and p99, runner-up and margin, predicted
/// time and predicted / measured.
void printReport(std::FILE *out, const TuneResult &result);

/// Every measurement, one row per (table, variant, size) with its prediction and whether it won.
std::string measurementsCsv(const TuneResult &result);

/// Settings, cost model, every variant with its status and reason, every measurement, buckets.
nlohmann::json reportJson(const TuneResult &result);

/// Log-log plot of time against size for one table: one line per measured variant, the winner
/// at each size marked, a legend. Self-contained SVG.
std::string plotSvg(const TuneResult &result, const TableResult &table);

/// The table's lower bound (TableResult::bound) at bucket b's size over its winner's time: 1 is
/// the best any plan can do on the topology, 0.93 near it; NaN where the table has no bound.
double boundFraction(const TableResult &table, const BucketChoice &bucket);

/// "allreduce-f32-sum": file-name stem of a table.
std::string tableFileStem(const TableResult &table);

/// Writes measurements.csv, report.json and one <table>.svg per table into `dir`; returns the
/// paths written. Throws TuneError naming a file that cannot be written.
std::vector<std::string> writeReportFiles(const TuneResult &result, const std::string &dir);

}  // namespace collplan::tune
