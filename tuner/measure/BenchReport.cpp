// printTable and toJson: plan-bench's human and machine-readable output.
#include "tuner/measure/BenchReport.h"

namespace collplan::measure {

double algBandwidth(const BenchRow &row) {
  return row.timeUs > 0 ? double(row.size.bytes) / row.timeUs / 1e3 : 0.0;
}

double busBandwidth(const BenchRow &row, const BenchCase &c) {
  return algBandwidth(row) * busBandwidthFactor(c.kind, c.ranks);
}

namespace {

std::string redopName(const BenchCase &c) {
  return needsReduceOp(c.kind) ? std::string(toString(c.op)) : "none";
}
int rootColumn(const BenchCase &c) { return needsRoot(c.kind) ? c.root : -1; }

}  // namespace

void printTable(std::FILE *out, const BenchInfo &info, const std::vector<BenchRow> &rows) {
  const BenchCase &c = info.benchCase;
  std::fprintf(out, "# plan-bench: %s, backend %s%s%s\n", describe(c).c_str(),
               info.backend.c_str(), info.topology.empty() ? "" : " on topology ",
               info.topology.c_str());
  std::fprintf(out, "# plans: %s\n", info.source.c_str());
  std::fprintf(out, "# %s\n", info.timing.c_str());
  if (!info.baseline.empty())
    std::fprintf(out, "# baseline: %s, same ranks, same method; ratio = ours / baseline\n",
                 info.baseline.c_str());
  const bool baseline = !info.baseline.empty();
  std::fprintf(out, "#%11s %12s %6s %6s %5s %12s %12s %12s %7s", "size", "count", "type", "redop",
               "root", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  if (baseline) std::fprintf(out, " %12s %7s", (info.baselineColumn + "(us)").c_str(), "ratio");
  std::fprintf(out, "  %s\n", "algorithm");
  for (const BenchRow &row : rows) {
    std::fprintf(out, "%12llu %12llu %6s %6s %5d %12.2f %12.3f %12.3f",
                 static_cast<unsigned long long>(row.size.bytes),
                 static_cast<unsigned long long>(row.size.elements),
                 std::string(toString(c.dtype)).c_str(), redopName(c).c_str(), rootColumn(c),
                 row.timeUs, algBandwidth(row), busBandwidth(row, c));
    if (row.wrong)
      std::fprintf(out, " %7llu", static_cast<unsigned long long>(*row.wrong));
    else
      std::fprintf(out, " %7s", "N/A");
    if (baseline) {
      if (row.baselineUs && *row.baselineUs > 0)
        std::fprintf(out, " %12.2f %7.2f", *row.baselineUs, row.timeUs / *row.baselineUs);
      else
        std::fprintf(out, " %12s %7s", "N/A", "N/A");
    }
    std::fprintf(out, "  %s\n", row.algorithm.c_str());
  }
  std::fflush(out);
}

nlohmann::json toJson(const BenchInfo &info, const std::vector<BenchRow> &rows) {
  const BenchCase &c = info.benchCase;
  nlohmann::json j;
  j["tool"] = "plan-bench";
  j["collective"] = std::string(toString(c.kind));
  j["dtype"] = std::string(toString(c.dtype));
  j["redop"] = redopName(c);
  j["root"] = rootColumn(c);
  j["ranks"] = c.ranks;
  j["backend"] = info.backend;
  j["plans"] = info.source;
  if (!info.topology.empty()) j["topology"] = info.topology;
  j["warmup"] = info.warmup;
  j["reps"] = info.reps > 0 ? nlohmann::json(info.reps) : nlohmann::json("auto");
  j["busbw_factor"] = busBandwidthFactor(c.kind, c.ranks);
  j["baseline"] = info.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.baseline);
  nlohmann::json out = nlohmann::json::array();
  for (const BenchRow &row : rows) {
    nlohmann::json r;
    r["size"] = row.size.bytes;
    r["count"] = row.size.elements;
    r["count_per_call"] = row.size.count;
    r["time_us"] = row.timeUs;
    r["algbw_gbps"] = algBandwidth(row);
    r["busbw_gbps"] = busBandwidth(row, c);
    r["wrong"] = row.wrong ? nlohmann::json(*row.wrong) : nlohmann::json(nullptr);
    r["algorithm"] = row.algorithm;
    if (!info.baseline.empty()) {
      r["baseline_us"] = row.baselineUs ? nlohmann::json(*row.baselineUs) : nlohmann::json(nullptr);
      r["ratio"] = row.baselineUs && *row.baselineUs > 0
                       ? nlohmann::json(row.timeUs / *row.baselineUs)
                       : nlohmann::json(nullptr);
    }
    out.push_back(std::move(r));
  }
  j["rows"] = std::move(out);
  return j;
}

}  // namespace collplan::measure
