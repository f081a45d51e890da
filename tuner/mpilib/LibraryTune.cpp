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

LibraryTable measureTable(const LibraryTuneSettings &s, const measure::BenchCase &c) {
  LibraryTable t;
  t.benchCase = c;
  t.sizes = measure::sizePoints(c, doublingSizes(s.minBytes, s.maxBytes));
  for (const measure::SizePoint &p : t.sizes) t.ruleBytes.push_back(s.library->ruleBytes(c, p.count));
  const measure::LoopSettings loop = loopSettings(s.quick);
  if (s.note) s.note(tableName(c) + ": the library's own decision");
  t.defaultUs = measure::runMpiSweep(c, t.sizes, loop, sweepCommand(s, ""));
  const std::vector<LibraryChoice> choices = s.library->choices(c.kind, c.ranks, s.quick);
  for (size_t i = 0; i < choices.size(); ++i) {
    ChoiceTimes times{choices[i], {}, {}};
    if (s.note)
      s.note(tableName(c) + ": " + choices[i].label() + " (" + std::to_string(i + 1) + " of " +
             std::to_string(choices.size()) + ")");
    const std::string path = s.workDir + "/" + std::string(toString(c.kind)) + "-" +
                             std::to_string(c.ranks) + "-" + std::to_string(i);
    writeFile(path, rulesText(*s.library, onlyChoice(c, choices[i]), ""));
    try {
      times.us = measure::runMpiSweep(c, t.sizes, loop, sweepCommand(s, path));
    } catch (const std::runtime_error &e) {
      times.error = e.what();
      if (s.note) s.note("  failed, left out: " + times.error.substr(0, times.error.find('\n')));
    }
    t.choices.push_back(std::move(times));
  }
  t.winner = chooseWinners(t);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Times the written rules and the default in interleaved rounds (default, tuned, default,
/// ...), so both see the same machine; each size's median over the rounds.
void confirmTable(const LibraryTuneSettings &s, const std::string &rulesPath, LibraryTable &t) {
  const int rounds = s.quick ? 1 : 3;
  std::vector<std::vector<double>> base(t.sizes.size()), tuned(t.sizes.size());
  const measure::LoopSettings loop = loopSettings(s.quick);
  for (int r = 0; r < rounds; ++r) {
    if (s.note)
      s.note(tableName(t.benchCase) + ": default against the tuned rules, round " +
             std::to_string(r + 1) + " of " + std::to_string(rounds));
    const std::vector<double> b = measure::runMpiSweep(t.benchCase, t.sizes, loop, sweepCommand(s, ""));
    const std::vector<double> u =
        measure::runMpiSweep(t.benchCase, t.sizes, loop, sweepCommand(s, rulesPath));
    for (size_t k = 0; k < t.sizes.size(); ++k) {
      base[k].push_back(b[k]);
      tuned[k].push_back(u[k]);
    }
  }
  t.tunedUs.clear();
  for (size_t k = 0; k < t.sizes.size(); ++k) {
    t.defaultUs[k] = median(base[k]);
    t.tunedUs.push_back(median(tuned[k]));
  }
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
