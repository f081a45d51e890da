// The nccl-tests table and the JSON document plan-bench prints.
#pragma once

#include "tuner/measure/BenchCase.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace collplan::measure {

/// One size of a finished benchmark.
struct BenchRow {
  SizePoint size;
  double timeUs = 0;
  std::optional<uint64_t> wrong;  ///< nullopt: not checked (the sim backend)
  std::string algorithm;          ///< the plan's algorithm at this size
  std::optional<double> baselineUs;
};

/// What the header and the JSON say about the run.
struct BenchInfo {
  BenchCase benchCase;
  std::string backend;
  /// How sizes were timed, from the runner: "3 warm-up, auto timed calls per size; time =
  /// median of the slowest rank", "time = simulated time; #wrong is not checked (N/A)".
  std::string timing;
  std::string source;    ///< PlanSource::label()
  std::string topology;  ///< sim only
  std::string baseline;  ///< e.g. "MPI_Allreduce (Open MPI via mpirun)"; empty: none
  std::string baselineColumn;  ///< the baseline's column in the table: "mpi(us)", "nccl(us)"
  int warmup = 0;
  int reps = 0;  ///< 0: auto
};

/// algbw in GB/s (bytes / µs / 1e3) and busbw = algbw × busBandwidthFactor.
double algBandwidth(const BenchRow &row);
double busBandwidth(const BenchRow &row, const BenchCase &c);

/// nccl-tests columns: size count type redop root time(us) algbw(GB/s) busbw(GB/s) #wrong, then
/// the baseline's time and ours/baseline when there is one, and the plan's algorithm.
void printTable(std::FILE *out, const BenchInfo &info, const std::vector<BenchRow> &rows);

/// {"collective", "dtype", ..., "rows": [{"size", "count", "time_us", "algbw_gbps", ...}]}.
nlohmann::json toJson(const BenchInfo &info, const std::vector<BenchRow> &rows);

}  // namespace collplan::measure
