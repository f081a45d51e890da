// Measures an MPI library's algorithms through rules files that select one each, selects the
// fastest per size, and times the written rules against the library's own decision.
#include "tuner/mpilib/LibraryTune.h"

#include "tuner/measure/MpiSweep.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace collplan::mpilib {
namespace {

std::string formatOf(const MpiLibrary &library, const std::string &format) {
  const std::vector<RulesFormat> formats = library.formats();
  if (format.empty()) return formats.front().name;
  for (const RulesFormat &f : formats)
    if (f.name == format) return format;
  std::string names;
  for (const RulesFormat &f : formats) names += (names.empty() ? "" : ", ") + f.name;
  throw std::invalid_argument("--rules-format: " + std::string(library.name()) + " writes " +
                              names + ", not '" + format + "'");
}

void checkSettings(const LibraryTuneSettings &s) {
  if (!s.library) throw std::invalid_argument("no MPI library given");
  const std::vector<CollectiveKind> tunable = s.library->collectives();
  for (CollectiveKind kind : s.collectives)
    if (std::find(tunable.begin(), tunable.end(), kind) == tunable.end())
      throw std::invalid_argument("--collectives: " + std::string(s.library->name()) +
                                  " has no algorithms to tune for " +
                                  std::string(toString(kind)));
  if (s.ranks.empty()) throw std::invalid_argument("--ranks: give at least one rank count");
  for (int n : s.ranks)
    if (n < 2)
      throw std::invalid_argument("--ranks: collectives need at least 2 ranks, got " +
                                  std::to_string(n));
  if (s.minBytes == 0 || s.minBytes > s.maxBytes)
    throw std::invalid_argument("--min-bytes must be at least 1 and at most --max-bytes");
  if (s.workDir.empty()) throw std::invalid_argument("no directory for the rules files");
  if (s.rounds < 1 || s.rounds > 100)
    throw std::invalid_argument("--rounds must be between 1 and 100, got " +
                                std::to_string(s.rounds));
  formatOf(*s.library, s.format);
}

std::vector<uint64_t> doublingSizes(uint64_t from, uint64_t to) {
  std::vector<uint64_t> out;
  for (uint64_t b = from; b <= to; b *= 2) out.push_back(b);
  return out;
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

measure::MpiSweepCommand sweepCommand(const LibraryTuneSettings &s,
                                      const std::string &rulesPath) {
  measure::MpiSweepCommand command;
  command.mpirun = s.mpirun;
  command.helper = s.helper;
  command.what = "--backend " + std::string(s.library->name());
  if (!rulesPath.empty()) command.env = s.library->rulesEnvironment(rulesPath);
  return command;
}

/// Repetitions as plan-bench's auto (100 up to 128 KiB, 5 at the largest): small sizes are
/// cheap and the noisiest, so even --quick keeps them.
measure::LoopSettings loopSettings(bool quick) {
  measure::LoopSettings loop;
  loop.warmup = quick ? 1 : 3;
  loop.reps = 0;
  return loop;
}

/// The rules that run `choice` at every size of `c`'s communicator size.
RuleSet onlyChoice(const measure::BenchCase &c, const LibraryChoice &choice) {
  return {CollectiveRules{c.kind, {RankRules{c.ranks, {SizeRule{0, choice}}}}}};
}

std::string tableName(const measure::BenchCase &c) {
  return std::string(toString(c.kind)) + " on " + std::to_string(c.ranks) + " ranks";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Per size, the median over rounds of `rounds[round][size]`.
std::vector<double> medianOverRounds(const std::vector<std::vector<double>> &rounds) {
  std::vector<double> out;
  for (size_t k = 0; !rounds.empty() && k < rounds.front().size(); ++k) {
    std::vector<double> v;
    for (const std::vector<double> &r : rounds) v.push_back(r[k]);
    out.push_back(median(v));
  }
  return out;
}

/// Every choice of `c` and the default, each in settings.rounds launches interleaved (default,
/// every choice; then the reverse order; ...); a choice whose launch fails is left out with its
/// error.
LibraryTable measureTable(const LibraryTuneSettings &s, const measure::BenchCase &c) {
  LibraryTable t;
  t.benchCase = c;
  t.sizes = measure::sizePoints(c, doublingSizes(s.minBytes, s.maxBytes));
  for (const measure::SizePoint &p : t.sizes) t.ruleBytes.push_back(s.library->ruleBytes(c, p.count));
  const measure::LoopSettings loop = loopSettings(s.quick);
  const std::vector<LibraryChoice> choices = s.library->choices(c.kind, c.ranks, s.quick);
  std::vector<std::string> paths;
  for (size_t i = 0; i < choices.size(); ++i) {
    t.choices.push_back({choices[i], {}, {}});
    paths.push_back(s.workDir + "/" + std::string(toString(c.kind)) + "-" +
                    std::to_string(c.ranks) + "-" + std::to_string(i));
    writeFile(paths.back(), rulesText(*s.library, onlyChoice(c, choices[i]), ""));
  }
  std::vector<std::vector<double>> defaults;
  std::vector<std::vector<std::vector<double>>> times(choices.size());
  for (int round = 0; round < s.rounds; ++round) {
    if (s.note)
      s.note(tableName(c) + ": the default and " + std::to_string(choices.size()) +
             " choices, round " + std::to_string(round + 1) + " of " + std::to_string(s.rounds));
    // Odd rounds run in reverse order, so no choice always follows the same one.
    const bool reverse = round % 2 == 1;
    if (!reverse) defaults.push_back(measure::runMpiSweep(c, t.sizes, loop, sweepCommand(s, "")));
    for (size_t j = 0; j < choices.size(); ++j) {
      const size_t i = reverse ? choices.size() - 1 - j : j;
      if (!t.choices[i].error.empty()) continue;
      try {
        times[i].push_back(measure::runMpiSweep(c, t.sizes, loop, sweepCommand(s, paths[i])));
      } catch (const std::runtime_error &e) {
        t.choices[i].error = e.what();
        if (s.note)
          s.note("  " + choices[i].label() + " failed, left out: " +
                 t.choices[i].error.substr(0, t.choices[i].error.find('\n')));
      }
    }
    if (reverse) defaults.push_back(measure::runMpiSweep(c, t.sizes, loop, sweepCommand(s, "")));
  }
  t.defaultUs = medianOverRounds(defaults);
  for (size_t i = 0; i < choices.size(); ++i)
    if (t.choices[i].error.empty()) t.choices[i].us = medianOverRounds(times[i]);
  t.winner = chooseWinners(t);
  return t;
}

/// Times the written rules and the default in interleaved rounds (default, tuned; tuned,
/// default; ...), so both see the same machine; each size's median over the rounds.
void confirmTable(const LibraryTuneSettings &s, const std::string &rulesPath, LibraryTable &t) {
  std::vector<std::vector<double>> base, tuned;
  const measure::LoopSettings loop = loopSettings(s.quick);
  for (int round = 0; round < s.rounds; ++round) {
    if (s.note)
      s.note(tableName(t.benchCase) + ": the default against the written rules, round " +
             std::to_string(round + 1) + " of " + std::to_string(s.rounds));
    // Which runs first alternates: the first launch after another tends to differ.
    const auto runDefault = [&] {
      base.push_back(measure::runMpiSweep(t.benchCase, t.sizes, loop, sweepCommand(s, "")));
    };
    const auto runTuned = [&] {
      tuned.push_back(measure::runMpiSweep(t.benchCase, t.sizes, loop, sweepCommand(s, rulesPath)));
    };
    if (round % 2 == 0) {
      runDefault();
      runTuned();
    } else {
      runTuned();
      runDefault();
    }
  }
  t.defaultUs = medianOverRounds(base);
  t.tunedUs = medianOverRounds(tuned);
}

}  // namespace

std::string rulesText(const MpiLibrary &library, const RuleSet &rules, const std::string &format) {
  std::ostringstream out;
  library.writeRules(rules, formatOf(library, format), out);
  return out.str();
}

std::vector<int> chooseWinners(const LibraryTable &t) {
  std::vector<int> winner;
  for (size_t k = 0; k < t.sizes.size(); ++k) {
    int best = -1;
    for (size_t i = 0; i < t.choices.size(); ++i)
      if (!t.choices[i].us.empty() &&
          (best < 0 || t.choices[i].us[k] < t.choices[size_t(best)].us[k]))
        best = int(i);
    const int previous = winner.empty() ? -1 : winner.back();
    if (best >= 0 && previous >= 0 &&
        t.choices[size_t(previous)].us[k] <= t.choices[size_t(best)].us[k] * (1 + kKeepMargin))
      best = previous;
    winner.push_back(best);
  }
  return winner;
}

RuleSet selectRules(const std::vector<LibraryTable> &tables) {
  RuleSet out;
  for (const LibraryTable &t : tables) {
    RankRules size{t.benchCase.ranks, {}};
    for (size_t k = 0; k < t.sizes.size(); ++k) {
      if (t.winner[k] < 0) continue;
      const LibraryChoice &choice = t.choices[size_t(t.winner[k])].choice;
      if (!size.rules.empty() && size.rules.back().choice.algorithm == choice.algorithm &&
          size.rules.back().choice.segmentBytes == choice.segmentBytes)
        continue;
      size.rules.push_back({size.rules.empty() ? 0 : t.ruleBytes[k - 1] + 1, choice});
    }
    if (size.rules.empty()) continue;
    auto collective = std::find_if(out.begin(), out.end(), [&](const CollectiveRules &r) {
      return r.kind == t.benchCase.kind;
    });
    if (collective == out.end()) collective = out.insert(out.end(), {t.benchCase.kind, {}});
    collective->byRanks.push_back(std::move(size));
  }
  for (CollectiveRules &r : out)
    std::sort(r.byRanks.begin(), r.byRanks.end(),
              [](const RankRules &a, const RankRules &b) { return a.ranks < b.ranks; });
  return out;
}

LibraryTuneResult runLibraryTune(const LibraryTuneSettings &settings) {
  checkSettings(settings);
  LibraryTuneResult result;
  result.library = settings.library;
  result.settings = settings;
  if (result.settings.collectives.empty())
    result.settings.collectives = settings.library->collectives();
  const LibraryTuneSettings &s = result.settings;
  for (CollectiveKind kind : s.collectives)
    for (int ranks : s.ranks) {
      measure::BenchCase c;
      c.kind = kind;
      c.dtype = s.dtype;
      c.op = s.op;
      c.ranks = ranks;
      measure::checkMpiSweep(c, sweepCommand(s, ""));
      result.tables.push_back(measureTable(s, c));
    }
  result.rules = selectRules(result.tables);
  // Each table is timed with its own collective's rules only: the timing loop's barrier and
  // allreduce stay the library's own, as in every other measurement. Through the format the
  // library reads (its first); --rules-format only changes the file plan-tune writes.
  for (LibraryTable &t : result.tables) {
    RuleSet own;
    for (const CollectiveRules &r : result.rules)
      if (r.kind == t.benchCase.kind) own.push_back(r);
    const std::string path = s.workDir + "/tuned-" + std::string(toString(t.benchCase.kind));
    writeFile(path, rulesText(*s.library, own, ""));
    confirmTable(s, path, t);
  }
  return result;
}

}  // namespace collplan::mpilib
