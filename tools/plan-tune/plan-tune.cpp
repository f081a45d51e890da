// plan-tune: tunes collective plans for a topology and backend; writes a bundle and a report.
#include "compiler/template/TemplateAlgorithms.h"
#include "tuner/TuneReport.h"
#include "tuner/Tuner.h"
#include "runtime/backends/Backend.h"
#include "tuner/measure/ByteSize.h"

#include "runtime/topology/Resolver.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace collplan;
using namespace collplan::tune;

namespace {

/// The command line before it is checked: the lists and sizes as typed.
struct Request {
  TuneSettings s;
  std::vector<std::string> collectives{"allreduce"}, dtypes{"f32"}, ops{"sum"}, schedules;
  std::string minBytes = "8", maxBytes = "256M";
  CLI::Option *ranksOption = nullptr;
};

void addFlags(CLI::App &app, Request &r) {
  TuneSettings &s = r.s;
  std::vector<std::string> &collectives = r.collectives, &dtypes = r.dtypes, &ops = r.ops;
  std::string &minBytes = r.minBytes, &maxBytes = r.maxBytes;
  std::vector<std::string> &schedules = r.schedules;
  app.add_option("-t,--topology", s.topologySpec,
                 "Topology: a .json file, a preset, a generator or local (" +
                     acceptedTopologySpecs() + "); default: the job's own on --backend mpi "
                     "(its nodes), local otherwise");
  app.add_option("--backend", s.backend, "Backend: " + backendNames())
      ->capture_default_str();
  app.add_option("-c,--collectives", collectives, "Collectives, comma separated: " + collectiveKindNames())
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("-d,--dtypes", dtypes, "Element types, comma separated: " + dtypeNames())
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--ops", ops, "Reduction ops, comma separated: " + reduceOpNames())
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("-a,--algorithms", s.algorithms,
                 "Only these registered algorithms, comma separated (default: all)")
      ->delimiter(',');
  app.add_option("--schedule", schedules,
                 "A .mlir file of schedule templates (coll.template), repeatable: each template "
                 "competes as an algorithm named by its symbol (its `tune` lists its values)")
      ->allow_extra_args(false);
  r.ranksOption = app.add_option("-n,--ranks", s.ranks,
                 "Ranks (default: the topology's; local: the number of cores, at least 2)");
  app.add_option("--root", s.root, "Root of rooted collectives")->capture_default_str();
  app.add_option("-b,--min-bytes", minBytes, "Smallest message M (K, M, G suffixes)")->capture_default_str();
  app.add_option("-e,--max-bytes", maxBytes, "Largest message M; sizes double from the smallest")
      ->capture_default_str();
  app.add_option("--budget", s.budgetSeconds,
                 "Seconds of measuring, checked between sizes; when spent, the bundle covers the sizes "
                 "measured (0: no limit)")
      ->capture_default_str();
  app.add_option("-o,--output", s.outputPath, "The bundle to write");
  app.add_option("--report-dir", s.reportDir, "Directory for measurements.csv, report.json and SVG plots");
  app.add_flag("--quick", s.quick, "Fewer parameter values and repetitions");
  app.add_flag("--fixed-reduction-order", s.fixedReductionOrder,
               "Only plans that reduce every element in rank order: results bitwise identical "
               "across sizes and buckets (others are not applicable)");
  app.add_option("--prune-factor", s.pruneFactor,
                 "Prune variants predicted this many times slower than the best at every size "
                 "(0: auto, 4 on cpu backends, none on sim)")
      ->capture_default_str();
  app.add_flag("--progress", s.progress, "Progress on stderr even when it is not a terminal");
  app.add_flag("-q,--quiet", s.quiet, "No progress or notes on stderr");
  app.add_flag_callback("--version", [] {
    std::printf("%s\n", toolVersion().c_str());
    throw CLI::Success();
  }, "Print the version");
}

/// Registers the --schedule files and checks and converts what was typed; throws TuneError.
TuneSettings checkedSettings(Request &r) {
  TuneSettings &s = r.s;
  const std::vector<std::string> &schedules = r.schedules;
  CLI::Option *ranksOption = r.ranksOption;
  for (const std::string &file : schedules) {
    try {
      registerTemplateFile(file);
    } catch (const std::invalid_argument &e) {
      throw TuneError(std::string("--schedule ") + e.what());
    }
  }
  if (ranksOption->count() && s.ranks < 2)  // 0 in the settings means "the topology's"
    throw TuneError("--ranks: collectives need at least 2 ranks, got " + std::to_string(s.ranks));
  s.collectives =
      parseNamedList("--collectives", r.collectives, &parseCollectiveKind, collectiveKindNames());
  s.dtypes = parseNamedList("--dtypes", r.dtypes, &parseDType, dtypeNames());
  s.ops = parseNamedList("--ops", r.ops, &parseReduceOp, reduceOpNames());
  s.minBytes = measure::parseByteSizeOption("--min-bytes", r.minBytes);
  s.maxBytes = measure::parseByteSizeOption("--max-bytes", r.maxBytes);
  if (!(s.pruneFactor == 0 || s.pruneFactor >= 1))
    throw TuneError("--prune-factor must be 0 (auto) or at least 1");
  return s;
}

/// Prints the report and writes the files (on the one process that reports); the exit code.
int report(const TuneSettings &s, const TuneResult &result) {
  // Under mpirun (--backend mpi) every process tuned alike and holds the same result; one
  // prints it and writes the files.
  if (!requireBackend(s.backend).reportsLaunches()) return result.bundle ? 0 : 1;
  std::fflush(stderr);
  printReport(stdout, result);
  std::fflush(stdout);
  if (!s.reportDir.empty())
    for (const std::string &path : writeReportFiles(result, s.reportDir))
      if (!s.quiet) std::fprintf(stderr, "plan-tune: wrote %s\n", path.c_str());
  if (!s.outputPath.empty() && result.bundle) {
    writeBundle(result, s.outputPath);
    if (!s.quiet)
      std::fprintf(stderr, "plan-tune: wrote %s (%zu tables%s)\n", s.outputPath.c_str(),
                   result.bundle->tables.size(), result.partial() ? ", partial" : "");
  }
  if (result.wrongVariants > 0)
    std::fprintf(stderr,
                 "plan-tune: WARNING: %d variant(s) produced WRONG results and were excluded "
                 "(see the notes above and report.json)\n",
                 result.wrongVariants);
  if (!result.bundle) {
    std::fprintf(stderr, "plan-tune: nothing was measured%s: no bundle written\n",
                 result.interrupted ? " before the interrupt" : "");
    return result.interrupted ? 130 : 1;
  }
  return result.interrupted ? 130 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"plan-tune: enumerate every algorithm variant, prune with the cost model, measure "
               "the survivors per size on a backend, and write the winners as a plan bundle with "
               "a report"};
  Request request;
  addFlags(app, request);
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;

  try {
    const TuneSettings s = checkedSettings(request);
    if (s.outputPath.empty() && !s.quiet && requireBackend(s.backend).reportsLaunches())
      std::fprintf(stderr, "plan-tune: no -o FILE: the report is printed but no bundle will be "
                           "written\n");
    return report(s, runTune(s));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "plan-tune: error: %s\n", e.what());
  }
  return 1;
}
