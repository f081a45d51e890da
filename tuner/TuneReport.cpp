// printReport, the CSV and JSON documents, and writing the report directory.
#include "tuner/TuneReport.h"

#include "runtime/core/Files.h"

#include "tuner/measure/ByteSize.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace collplan::tune {
namespace {

/// How sure a bucket's switch is, for the table: "-" (first bucket, or the previous winner not
/// measured there), "exact" (simulated times), else "7.1 se" (standard errors of the medians).
std::string switchText(double sigmas) {
  if (std::isnan(sigmas)) return "-";
  if (std::isinf(sigmas)) return "exact";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f se", sigmas);
  return text;
}

/// Bucket k's time as plan-bench runs the bundle (confirmBundle, the median over launches): "-"
/// where not confirmed, "failed" where that run failed.
std::string confirmedText(const TableResult &t, size_t k) {
  if (k >= t.confirmed.size()) return "-";
  if (!t.confirmed[k].ran()) return "failed";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", t.confirmed[k].medianUs);
  return text;
}

/// {"median_us", "min_us", "max_us"} over the confirming launches, or null.
nlohmann::json confirmedJson(const TableResult &t, size_t k) {
  if (k >= t.confirmed.size() || !t.confirmed[k].ran()) return nullptr;
  const Confirmation &c = t.confirmed[k];
  return {{"median_us", c.medianUs}, {"min_us", c.minUs}, {"max_us", c.maxUs}};
}

/// The same in report.json: null, "exact" or the number.
nlohmann::json switchJson(double sigmas) {
  if (std::isnan(sigmas)) return nullptr;
  if (std::isinf(sigmas)) return "exact";
  return sigmas;
}

std::string rangeText(const BucketChoice &b) {
  const std::string hi = b.maxBytes == UINT64_MAX ? "max" : measure::formatBytes(b.maxBytes);
  return measure::formatBytes(b.minBytes) + " - " + hi;
}

/// The CSV field for `text`, quoted when it holds a comma or quote.
std::string csvField(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string s = "\"";
  for (char c : text) s += c == '"' ? std::string("\"\"") : std::string(1, c);
  return s + "\"";
}

/// "93%", or "-" without a bound.
std::string boundText(double fraction) {
  if (std::isnan(fraction)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", 100 * fraction);
  return text;
}

/// The table's bound in report.json: its terms (null without one).
nlohmann::json boundJson(const TableResult &t) {
  if (!t.bound) return nullptr;
  const CollectiveBound &b = *t.bound;
  return {{"latency_us", b.latencyUs}, {"latency_path", b.latencyPath},
          {"link_us_per_byte", b.linkUsPerByte}, {"link_cut", b.linkCut},
          {"reduce_us_per_byte", b.reduceUsPerByte}, {"memory_counted", !b.memory.empty()},
          {"sampled", b.sampled}};
}

bool isWinnerAt(const TableResult &t, size_t v, size_t s) {
  return s < t.choices.size() && t.choices[s].winner == int(v);
}

/// One line per bucket: range, winner, its time with the median's standard error, its time as
/// plan-bench runs the bundle, the runner-up and margin, how sure the switch into it is, the
/// prediction, and the topology's lower bound over the winner's time.
void printBuckets(std::FILE *out, const TableResult &t) {
  std::fprintf(out, "%-24s %-26s %10s %10s %8s %10s %10s  %-26s %8s %8s %10s %9s %7s\n",
               "#   bucket", "winner", "at", "time(us)", "err(us)", "p99(us)", "bench(us)",
               "runner-up", "margin", "switch", "pred(us)", "pred/meas", "bound%");
  for (size_t k = 0; k < t.buckets.size(); ++k) {
    const BucketChoice &b = t.buckets[k];
    const Measurement &w = t.measurements.byVariant[size_t(b.winner)][b.sizeIndex];
    const double pred = t.measurements.predictedUs[size_t(b.winner)][b.sizeIndex];
    std::string runner = "-", margin = "-";
    if (b.runnerUp >= 0) {
      const Measurement &ru = t.measurements.byVariant[size_t(b.runnerUp)][b.sizeIndex];
      runner = t.variants[size_t(b.runnerUp)].variant.label;
      char m[32];
      // Negative: the runner-up measured faster but within the noise (a tie, see Selection.h).
      std::snprintf(m, sizeof m, "%+.1f%%", (ru.medianUs / w.medianUs - 1) * 100);
      margin = m;
    }
    std::fprintf(out, "    %-20s %-26s %10s %10.2f %8.2f %10.2f %10s  %-26s %8s %8s %10.2f %9.2f %7s\n",
                 rangeText(b).c_str(), t.variants[size_t(b.winner)].variant.label.c_str(),
                 measure::formatBytes(t.measurements.sizes[b.sizeIndex].bytes).c_str(), w.medianUs,
                 w.medianErrorUs, w.p99Us, confirmedText(t, k).c_str(), runner.c_str(),
                 margin.c_str(), switchText(b.switchSigmas).c_str(), pred,
                 w.medianUs > 0 ? pred / w.medianUs : 0.0, boundText(boundFraction(t, b)).c_str());
  }
}

}  // namespace

double boundFraction(const TableResult &t, const BucketChoice &b) {
  if (!t.bound || b.winner < 0) return std::nan("");
  const double us = t.measurements.byVariant[size_t(b.winner)][b.sizeIndex].medianUs;
  if (us <= 0) return std::nan("");
  return t.bound->timeUs(t.measurements.sizes[b.sizeIndex].bytes) / us;
}

std::string tableFileStem(const TableResult &t) {
  std::string s = std::string(toString(t.benchCase.kind)) + "-" + std::string(toString(t.benchCase.dtype));
  if (needsReduceOp(t.benchCase.kind)) s += "-" + std::string(toString(t.benchCase.op));
  if (needsRoot(t.benchCase.kind)) s += "-root" + std::to_string(t.benchCase.root);
  return s;
}

void printReport(std::FILE *out, const TuneResult &r) {
  std::fprintf(out, "# plan-tune: topology %s (%s, fingerprint %s), %d ranks, backend %s\n",
               r.settings.topologySpec.c_str(), r.topology.name.c_str(), r.fingerprint.c_str(),
               r.ranks, r.settings.backend.c_str());
  std::fprintf(out, "# cost model: %s\n", r.alphaBeta.source.c_str());
  std::fprintf(out, "# sizes %s - %s (x2)%s, %.1f s%s\n", measure::formatBytes(r.settings.minBytes).c_str(),
               measure::formatBytes(r.settings.maxBytes).c_str(), r.settings.quick ? ", quick" : "",
               r.seconds,
               r.interrupted ? ", INTERRUPTED: partial results"
               : r.budgetExhausted ? ", budget spent: partial results" : "");
  for (const TableResult &t : r.tables) {
    std::string counts = std::to_string(t.enumerated) + " combinations, " +
                         std::to_string(t.variants.size()) + " distinct plans";
    for (VariantStatus status :
         {VariantStatus::NotApplicable, VariantStatus::Duplicate, VariantStatus::CompileFailed,
          VariantStatus::Unsupported, VariantStatus::Pruned, VariantStatus::RunFailed,
          VariantStatus::Wrong}) {
      const int n = t.notesCount(status);
      if (n > 0 || status == VariantStatus::Pruned)
        counts += ", " + std::to_string(n) + " " +
                  (status == VariantStatus::Wrong ? "WRONG" : std::string(toString(status)));
    }
    counts += ", " + std::to_string(t.measuredVariants()) + " measured";
    std::fprintf(out, "\n## %s on %d ranks: %s\n", t.name().c_str(), t.benchCase.ranks,
                 counts.c_str());
    if (t.buckets.empty()) {
      std::fprintf(out, "   (nothing measured: no bucket)\n");
      continue;
    }
    printBuckets(out, t);
    if (t.bound)
      std::fprintf(out, "   bound%%: the topology's lower bound at the bucket's size over the "
                        "winner's time (latency %.2f us; links: %s)\n",
                   t.bound->latencyUs, t.bound->linkCut.empty() ? "-" : t.bound->linkCut.c_str());
  }
}

std::string measurementsCsv(const TuneResult &r) {
  std::string csv = "collective,dtype,op,variant,algorithm,params,size_bytes,count,median_us,"
                    "median_error_us,p99_us,reps,batches,wrong,predicted_us,winner\n";
  char num[64];
  for (const TableResult &t : r.tables)
    for (size_t v = 0; v < t.variants.size(); ++v)
      for (size_t s = 0; s < t.measurements.sizes.size(); ++s) {
        const Measurement &m = t.measurements.byVariant[v][s];
        if (!m.done) continue;
        const measure::SizePoint &p = t.measurements.sizes[s];
        csv += std::string(toString(t.benchCase.kind)) + "," + std::string(toString(t.benchCase.dtype)) +
               "," + (needsReduceOp(t.benchCase.kind) ? std::string(toString(t.benchCase.op)) : "") +
               "," + csvField(t.variants[v].variant.label) + "," + t.variants[v].variant.algorithm +
               "," + csvField(t.variants[v].variant.paramsJson().dump()) + "," +
               std::to_string(p.bytes) + "," + std::to_string(p.count) + ",";
        std::snprintf(num, sizeof num, "%.4f,%.4f,%.4f,", m.medianUs, m.medianErrorUs, m.p99Us);
        csv += num + std::to_string(m.reps) + "," + std::to_string(m.batches) + "," +
               std::to_string(m.wrong) + ",";
        std::snprintf(num, sizeof num, "%.4f,", t.measurements.predictedUs[v][s]);
        csv += num + std::string(isWinnerAt(t, v, s) ? "1" : "0") + "\n";
      }
  return csv;
}

nlohmann::json reportJson(const TuneResult &r) {
  nlohmann::json j;
  j["tool_version"] = toolVersion();
  j["settings"] = r.settings.toJson();
  j["topology"] = {{"spec", r.settings.topologySpec}, {"name", r.topology.name},
                   {"fingerprint", r.fingerprint}, {"ranks", r.ranks}};
  j["backend"] = r.settings.backend;
  j["cost_model"] = {{"alpha_us", r.alphaBeta.alphaUs},
                     {"bandwidth_gbps", r.alphaBeta.bytesPerUs / 1e3},
                     {"source", r.alphaBeta.source}};
  j["partial"] = r.partial();
  j["interrupted"] = r.interrupted;
  j["budget_exhausted"] = r.budgetExhausted;
  j["seconds"] = r.seconds;
  j["wrong_variants"] = r.wrongVariants;
  j["bundle_written"] = r.bundle.has_value();
  nlohmann::json tables = nlohmann::json::array();
  for (const TableResult &t : r.tables) {
    nlohmann::json tj;
    tj["name"] = t.name();
    tj["collective"] = std::string(toString(t.benchCase.kind));
    tj["dtype"] = std::string(toString(t.benchCase.dtype));
    if (needsReduceOp(t.benchCase.kind)) tj["op"] = std::string(toString(t.benchCase.op));
    tj["ranks"] = t.benchCase.ranks;
    tj["combinations"] = t.enumerated;
    nlohmann::json sizes = nlohmann::json::array();
    for (const measure::SizePoint &p : t.measurements.sizes) sizes.push_back(p.bytes);
    tj["sizes"] = sizes;
    nlohmann::json variants = nlohmann::json::array(), rows = nlohmann::json::array();
    for (size_t v = 0; v < t.variants.size(); ++v) {
      const CompiledVariant &cv = t.variants[v];
      const auto [status, reason] = t.statusOf(v);
      variants.push_back({{"label", cv.variant.label}, {"algorithm", cv.variant.algorithm},
                          {"origin", cv.variant.origin}, {"params", cv.variant.paramsJson()},
                          {"alpha_rounds", cv.alphaRounds}, {"beta", cv.beta},
                          {"status", std::string(toString(status))}, {"reason", reason},
                          {"check", t.checkNotes[v]}});
      for (size_t s = 0; s < t.measurements.sizes.size(); ++s) {
        const Measurement &m = t.measurements.byVariant[v][s];
        if (!m.done) continue;
        rows.push_back({{"variant", cv.variant.label}, {"size_bytes", t.measurements.sizes[s].bytes},
                        {"count", t.measurements.sizes[s].count}, {"median_us", m.medianUs},
                        {"median_error_us", m.medianErrorUs}, {"p99_us", m.p99Us},
                        {"reps", m.reps}, {"batches", m.batches},
                        {"wrong", m.wrong}, {"predicted_us", t.measurements.predictedUs[v][s]},
                        {"winner", isWinnerAt(t, v, s)}});
      }
    }
    nlohmann::json others = nlohmann::json::array();
    for (const VariantNote &n : t.notes)
      if (n.status == VariantStatus::NotApplicable || n.status == VariantStatus::CompileFailed ||
          n.status == VariantStatus::Duplicate)
        others.push_back({{"label", n.label}, {"status", std::string(toString(n.status))},
                          {"reason", n.reason}});
    tj["variants"] = variants;
    tj["not_compiled"] = others;
    tj["measurements"] = rows;
    nlohmann::json buckets = nlohmann::json::array();
    for (const BucketChoice &b : t.buckets) {
      auto cand = [&](int v) -> nlohmann::json {
        if (v < 0) return nullptr;
        return {{"variant", t.variants[size_t(v)].variant.label},
                {"measured_us", t.measurements.byVariant[size_t(v)][b.sizeIndex].medianUs},
                {"median_error_us", t.measurements.byVariant[size_t(v)][b.sizeIndex].medianErrorUs},
                {"predicted_us", t.measurements.predictedUs[size_t(v)][b.sizeIndex]}};
      };
      buckets.push_back({{"min_bytes", b.minBytes}, {"max_bytes", b.maxBytes},
                         {"at_bytes", t.measurements.sizes[b.sizeIndex].bytes},
                         {"winner", cand(b.winner)}, {"runner_up", cand(b.runnerUp)},
                         {"switch_sigmas", switchJson(b.switchSigmas)},
                         {"bound_us", t.bound ? nlohmann::json(t.bound->timeUs(
                                                    t.measurements.sizes[b.sizeIndex].bytes))
                                              : nlohmann::json(nullptr)},
                         {"bound_fraction", std::isnan(boundFraction(t, b))
                                                ? nlohmann::json(nullptr)
                                                : nlohmann::json(boundFraction(t, b))},
                         {"confirmed", confirmedJson(t, size_t(&b - t.buckets.data()))}});
    }
    tj["buckets"] = buckets;
    tj["bound"] = boundJson(t);
    tables.push_back(tj);
  }
  j["tables"] = tables;
  return j;
}

std::vector<std::string> writeReportFiles(const TuneResult &r, const std::string &dir) {
  std::vector<std::string> written;
  auto write = [&](const std::string &name, const std::string &text) {
    const std::string path = dir + "/" + name;
    try {
      writeWholeFile(path, text);
    } catch (const FileError &e) {
      throw TuneError(std::string("--report-dir: ") + e.what());
    }
    written.push_back(path);
  };
  write("measurements.csv", measurementsCsv(r));
  write("report.json", reportJson(r).dump(1) + "\n");
  for (const TableResult &t : r.tables) write(tableFileStem(t) + ".svg", plotSvg(r, t));
  return written;
}

}  // namespace collplan::tune
