// The report of an MPI library's tuning: the terminal table, report.json (which --rules-from
// reads back) and measurements.csv.
#include "tuner/mpilib/LibraryTune.h"

#include "tuner/measure/ByteSize.h"

#include <optional>
#include <sstream>
#include <stdexcept>

namespace collplan::mpilib {
namespace {

std::string choiceLabel(const LibraryTable &t, int index) {
  return index < 0 ? std::string("-") : t.choices[size_t(index)].choice.label();
}

void printTable(std::FILE *out, const LibraryTable &t) {
  std::fprintf(out, "\n%s on %d ranks\n", toString(t.benchCase.kind).data(), t.benchCase.ranks);
  std::fprintf(out, "%10s %12s %12s  %-30s %12s %12s %8s\n", "size", "rule bytes", "default(us)",
               "chosen", "chosen(us)", "tuned(us)", "gain");
  for (size_t k = 0; k < t.sizes.size(); ++k) {
    const int w = t.winner[k];
    const double best = w < 0 ? 0 : t.choices[size_t(w)].us[k];
    const double tuned = k < t.tunedUs.size() ? t.tunedUs[k] : 0;
    std::fprintf(out, "%10s %12llu %12.2f  %-30s %12.2f %12.2f %7.2fx\n",
                 measure::formatBytes(t.sizes[k].bytes).c_str(),
                 static_cast<unsigned long long>(t.ruleBytes[k]), t.defaultUs[k],
                 choiceLabel(t, w).c_str(), best, tuned,
                 tuned > 0 ? t.defaultUs[k] / tuned : 0.0);
  }
}

nlohmann::json choiceJson(const LibraryChoice &choice) {
  return {{"algorithm", choice.algorithm->name}, {"segment_bytes", choice.segmentBytes}};
}

LibraryChoice choiceOf(const MpiLibrary &library, CollectiveKind kind, const nlohmann::json &j,
                       const std::string &where) {
  const std::string name = j.at("algorithm").get<std::string>();
  const LibraryAlgorithm *a = library.findAlgorithm(kind, name);
  if (!a)
    throw std::invalid_argument(where + ": " + std::string(library.name()) + " has no " +
                                std::string(toString(kind)) + " algorithm '" + name + "'");
  return {a, j.value("segment_bytes", 0u)};
}

}  // namespace

void printLibraryReport(std::FILE *out, const LibraryTuneResult &result) {
  std::fprintf(out, "%s: %zu tables; chosen = the fastest algorithm (or the previous size's, "
                    "within 5%%); default = the library's own decision and tuned = the written "
                    "rules, medians of interleaved rounds; gain = default / tuned\n",
               std::string(result.library->title()).c_str(), result.tables.size());
  for (const LibraryTable &t : result.tables) printTable(out, t);
}

nlohmann::json libraryReportJson(const LibraryTuneResult &result) {
  nlohmann::json tables = nlohmann::json::array();
  for (const LibraryTable &t : result.tables) {
    nlohmann::json choices = nlohmann::json::array();
    for (const ChoiceTimes &c : t.choices) {
      nlohmann::json j = choiceJson(c.choice);
      j["us"] = c.us;
      if (!c.error.empty()) j["error"] = c.error;
      choices.push_back(j);
    }
    nlohmann::json sizes = nlohmann::json::array();
    for (size_t k = 0; k < t.sizes.size(); ++k)
      sizes.push_back({{"bytes", t.sizes[k].bytes}, {"count", t.sizes[k].count},
                       {"rule_bytes", t.ruleBytes[k]}});
    tables.push_back({{"collective", toString(t.benchCase.kind)},
                      {"ranks", t.benchCase.ranks},
                      {"dtype", toString(t.benchCase.dtype)},
                      {"op", toString(t.benchCase.op)},
                      {"sizes", sizes},
                      {"default_us", t.defaultUs},
                      {"tuned_us", t.tunedUs},
                      {"winner", t.winner},
                      {"choices", choices}});
  }
  return {{"library", result.library->name()}, {"tables", tables}};
}

std::string libraryMeasurementsCsv(const LibraryTuneResult &result) {
  std::ostringstream out;
  out << "collective,ranks,bytes,rule_bytes,choice,us,fastest\n";
  for (const LibraryTable &t : result.tables)
    for (size_t k = 0; k < t.sizes.size(); ++k) {
      const auto row = [&](const std::string &label, double us, bool fastest) {
        out << toString(t.benchCase.kind) << "," << t.benchCase.ranks << "," << t.sizes[k].bytes
            << "," << t.ruleBytes[k] << "," << label << "," << us << "," << (fastest ? 1 : 0)
            << "\n";
      };
      row("default", t.defaultUs[k], false);
      if (k < t.tunedUs.size()) row("tuned", t.tunedUs[k], false);
      for (size_t i = 0; i < t.choices.size(); ++i)
        if (!t.choices[i].us.empty())
          row(t.choices[i].choice.label(), t.choices[i].us[k], t.winner[k] == int(i));
    }
  return out.str();
}

LibraryTuneResult readLibraryReport(const nlohmann::json &report, const std::string &what) {
  LibraryTuneResult result;
  try {
    const std::string name = report.at("library").get<std::string>();
    result.library = findMpiLibrary(name);
    if (!result.library)
      throw std::invalid_argument("\"library\": unknown library '" + name + "' (known: " +
                                  mpiLibraryNames() + ")");
    result.settings.library = result.library;
    const nlohmann::json &tables = report.at("tables");
    for (size_t i = 0; i < tables.size(); ++i) {
      const nlohmann::json &j = tables[i];
      const std::string where = "tables[" + std::to_string(i) + "]";
      LibraryTable t;
      const std::string collective = j.at("collective").get<std::string>();
      const std::optional<CollectiveKind> kind = parseCollectiveKind(collective);
      if (!kind)
        throw std::invalid_argument(where + ".collective: unknown collective '" + collective + "'");
      t.benchCase.kind = *kind;
      t.benchCase.ranks = j.at("ranks").get<int>();
      for (const nlohmann::json &size : j.at("sizes")) {
        measure::SizePoint p;
        p.bytes = size.at("bytes").get<uint64_t>();
        p.count = size.at("count").get<size_t>();
        t.sizes.push_back(p);
        t.ruleBytes.push_back(size.at("rule_bytes").get<uint64_t>());
      }
      t.defaultUs = j.at("default_us").get<std::vector<double>>();
      t.tunedUs = j.value("tuned_us", std::vector<double>{});
      t.winner = j.at("winner").get<std::vector<int>>();
      for (const nlohmann::json &c : j.at("choices"))
        t.choices.push_back({choiceOf(*result.library, t.benchCase.kind, c, where),
                             c.value("us", std::vector<double>{}), c.value("error", "")});
      if (t.winner.size() != t.sizes.size() || t.defaultUs.size() != t.sizes.size())
        throw std::invalid_argument(where + ": \"winner\" and \"default_us\" need one entry per "
                                    "size");
      for (int w : t.winner)
        if (w >= int(t.choices.size()) ||
            (w >= 0 && t.choices[size_t(w)].us.size() != t.sizes.size()))
          throw std::invalid_argument(where + ": \"winner\" " + std::to_string(w) +
                                      " names no measured choice");
      result.tables.push_back(std::move(t));
    }
  } catch (const nlohmann::json::exception &e) {
    throw std::invalid_argument(what + ": not a plan-tune library report: " + e.what());
  } catch (const std::invalid_argument &e) {
    throw std::invalid_argument(what + ": " + e.what());
  }
  result.rules = selectRules(result.tables);
  return result;
}

}  // namespace collplan::mpilib
