// plan-tune --backend ompi-tuned|mpich: measures each algorithm of an MPI library per collective,
// size and rank count, selects the fastest per size, and writes the library's rules file.
#pragma once

#include "tuner/measure/BenchCase.h"
#include "tuner/mpilib/MpiLibrary.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace collplan::mpilib {

/// What to tune; plan-tune fills it from its flags.
struct LibraryTuneSettings {
  const MpiLibrary *library = nullptr;
  std::vector<CollectiveKind> collectives;  ///< empty: every one the library tunes
  std::vector<int> ranks{2};                ///< communicator sizes, each a separate mpirun
  DType dtype = DType::F32;
  ReduceOp op = ReduceOp::Sum;
  uint64_t minBytes = 8, maxBytes = uint64_t(64) << 20;
  bool quick = false;    ///< default segment sizes only, one warm-up call
  /// Separate launches of every choice (and of the default), interleaved; each size's time is
  /// the median over them. On a loaded or oversubscribed machine a launch's scheduling luck
  /// moves all its sizes together, so one launch per choice ranks launches, not algorithms.
  int rounds = 3;
  std::string mpirun;    ///< the library's launcher
  std::string helper;    ///< collplan-mpi-baseline built against the library
  std::string workDir;   ///< where the per-algorithm rules files go (a temporary directory)
  std::string format;    ///< the rules format written (empty: the library's first)
  /// Progress lines ("allreduce on 4 ranks: ring (3 of 7)"); may be empty.
  std::function<void(const std::string &)> note;
};

/// One choice's time per size (µs; empty with `error` where its run failed).
struct ChoiceTimes {
  LibraryChoice choice;
  std::vector<double> us;
  std::string error;
};

/// One collective on one communicator size.
struct LibraryTable {
  measure::BenchCase benchCase;
  std::vector<measure::SizePoint> sizes;
  std::vector<uint64_t> ruleBytes;   ///< [size] what the library's rules compare
  std::vector<double> defaultUs;     ///< [size] no rules file: the library's own decision
  std::vector<ChoiceTimes> choices;
  std::vector<int> winner;           ///< [size] the rules' choice (chooseWinners; -1: none ran)
  /// [size] the written rules file loaded, timed in rounds interleaved with the default
  /// (medians of the rounds; then defaultUs holds the default's median of the same rounds).
  std::vector<double> tunedUs;
};

struct LibraryTuneResult {
  const MpiLibrary *library = nullptr;
  LibraryTuneSettings settings;
  std::vector<LibraryTable> tables;
  RuleSet rules;
};

/// Measures every table, selects, writes the rules to `settings.workDir`/tuned and times them
/// against the default. Throws std::invalid_argument on a bad request (no helper, a collective
/// the library does not tune, fewer than 2 ranks); a choice that fails is recorded, not fatal.
LibraryTuneResult runLibraryTune(const LibraryTuneSettings &settings);

/// A size keeps the previous size's choice when that choice is within this fraction of the
/// fastest there: rules that switch algorithms on measurement noise would cost more than the
/// noise is worth.
inline constexpr double kKeepMargin = 0.05;

/// Per size, the choice the rules make (index into choices; -1 where none ran): the fastest,
/// or the previous size's choice when it is within kKeepMargin of the fastest.
std::vector<int> chooseWinners(const LibraryTable &table);

/// The rules the choice at each measured size makes: a rule starts just above the
/// previous size's rule bytes (the first at 0) and equal neighbours merge.
RuleSet selectRules(const std::vector<LibraryTable> &tables);

/// The rules file text in `format` (empty: the library's first format).
std::string rulesText(const MpiLibrary &library, const RuleSet &rules, const std::string &format);

/// Per table, one row per size: default, fastest choice, tuned (when timed) and the gain.
void printLibraryReport(std::FILE *out, const LibraryTuneResult &result);
/// Every measurement and the rules: what --rules-from reads back.
nlohmann::json libraryReportJson(const LibraryTuneResult &result);
/// One row per (table, choice or default or tuned, size).
std::string libraryMeasurementsCsv(const LibraryTuneResult &result);
/// One table drawn: time relative to the fastest algorithm at each size, per algorithm, the
/// library's default and the written rules. Self-contained SVG.
std::string librarySvg(const LibraryTuneResult &result, const LibraryTable &table);
/// The tables and rules of a report written by libraryReportJson, for rewriting the rules in
/// another format without measuring again. Throws std::invalid_argument naming the field.
LibraryTuneResult readLibraryReport(const nlohmann::json &report, const std::string &what);

}  // namespace collplan::mpilib
