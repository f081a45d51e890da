// plan-tune: tunes collective plans for a topology and backend; writes a bundle and a report.
#include "compiler/template/TemplateAlgorithms.h"
#include "runtime/interop/BundleExport.h"
#include "tuner/NcclTunerRules.h"
#include "tuner/TuneReport.h"
#include "tuner/Tuner.h"
#include "runtime/backends/Backend.h"
#include "tuner/measure/ByteSize.h"
#include "tuner/measure/MpiSweep.h"
#include "tuner/mpilib/LibraryTune.h"

#include "runtime/topology/Resolver.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
  std::vector<int> ranks;  ///< -n: one count, or several for an MPI library
  CLI::Option *ranksOption = nullptr, *maxBytesOption = nullptr;
  /// --backend ompi-tuned|mpich: an MPI library's own algorithms.
  std::string mpirun, mpiHelper, rulesFormat, rulesFrom;
  int rounds = 3;
  CLI::Option *roundsOption = nullptr;
  /// What -o receives: the plan bundle, or the NCCL tuner plugin's rules.
  std::string emit = "bundle";
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
  app.add_option("--backend", s.backend,
                 "Backend: " + backendNames() + "; or an MPI library whose own algorithms are "
                 "tuned and written as its rules file: " + mpilib::mpiLibraryNames())
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
  r.ranksOption = app.add_option("-n,--ranks", r.ranks,
                 "Ranks (default: the topology's; local: the number of cores, at least 2); "
                 "comma separated for an MPI library (default 2)")
                      ->delimiter(',');
  app.add_option("--root", s.root, "Root of rooted collectives")->capture_default_str();
  app.add_option("-b,--min-bytes", minBytes, "Smallest message M (K, M, G suffixes)")->capture_default_str();
  r.maxBytesOption =
      app.add_option("-e,--max-bytes", maxBytes,
                     "Largest message M; sizes double from the smallest (an MPI library: 64M)")
          ->capture_default_str();
  app.add_option("--budget", s.budgetSeconds,
                 "Seconds of measuring, checked between sizes; when spent, the bundle covers the sizes "
                 "measured (0: no limit)")
      ->capture_default_str();
  app.add_option("-o,--output", s.outputPath, "The bundle to write (or, with --emit "
                 "nccl-tuner, the NCCL tuner plugin's rules; with msccl-xml or mscclpp-json, "
                 "a directory)");
  app.add_option("--emit", r.emit,
                 "What -o receives: bundle (the winners' plans), nccl-tuner (rules for "
                 "libnccl-tuner-collplan.so: each bucket's winner as NCCL's algorithm of the "
                 "same schedule, where NCCL has one), or msccl-xml / mscclpp-json (a directory "
                 "of one MSCCL algorithm or MSCCL++ execution plan per size bucket)")
      ->check(CLI::IsMember({"bundle", "nccl-tuner", "msccl-xml", "mscclpp-json"}))
      ->capture_default_str();
  app.add_option("--report-dir", s.reportDir, "Directory for measurements.csv, report.json and SVG plots");
  app.add_flag("--quick", s.quick, "Fewer parameter values and repetitions");
  app.add_flag("--fixed-reduction-order", s.fixedReductionOrder,
               "Only plans that reduce every element in rank order: results bitwise identical "
               "across sizes and buckets (others are not applicable)");
  app.add_option("--prune-factor", s.pruneFactor,
                 "Prune variants predicted this many times slower than the best at every size "
                 "(0: auto, 4 on cpu backends, none on sim)")
      ->capture_default_str();
  app.add_option("--mpirun", r.mpirun,
                 "An MPI library's launcher (default: mpirun.openmpi for ompi-tuned, "
                 "mpirun.mpich for mpich)");
  app.add_option("--mpi-helper", r.mpiHelper,
                 "The sweep helper built against that library (default: next to plan-tune)");
  app.add_option("--rules-format", r.rulesFormat,
                 "An MPI library's rules file format: ompi-text (default), ompi-json; "
                 "mpich-csel");
  r.roundsOption = app.add_option("--rounds", r.rounds,
                                  "An MPI library: launches of each algorithm, interleaved; a "
                                  "size's time is the median over them (default 3)");
  app.add_option("--rules-from", r.rulesFrom,
                 "Write the rules of an earlier run's report.json (an MPI library's) without "
                 "measuring");
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
  if (r.ranks.size() > 1)
    throw TuneError("--ranks: one rank count (several only for an MPI library: " +
                    mpilib::mpiLibraryNames() + ")");
  if (ranksOption->count()) s.ranks = r.ranks.front();
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

void writeText(const std::filesystem::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw TuneError("cannot write " + path.string());
}

/// --emit msccl-xml|mscclpp-json: one file per size bucket in the directory -o; a line per
/// bucket skipped (always) and written (unless quiet). Throws TuneError when none was written.
void writeInteropFiles(const TuneSettings &s, InteropFormat format, const TuneResult &result) {
  const BundleExport exported = exportBundle(*result.bundle, format, s.outputPath);
  for (const ExportedBucket &bucket : exported.buckets)
    if (!bucket.skipped.empty() || !s.quiet)
      std::fprintf(stderr, "plan-tune: %s\n", describe(bucket).c_str());
  if (exported.written() == 0)
    throw TuneError("--emit " + std::string(toString(format)) +
                    ": no bucket could be exported (see above)");
}

/// Writes -o: the bundle, or with `emit` "nccl-tuner" the NCCL tuner plugin's rules, or with
/// "msccl-xml" / "mscclpp-json" a directory of one file per bucket.
void writeOutput(const TuneSettings &s, const std::string &emit, const TuneResult &result) {
  if (const std::optional<InteropFormat> format = parseInteropFormat(emit)) {
    writeInteropFiles(s, *format, result);
    return;
  }
  if (emit == "nccl-tuner") {
    const nlohmann::json rules = ncclTunerRules(result);
    writeText(s.outputPath, rules.dump(1) + "\n");
    if (!s.quiet)
      std::fprintf(stderr, "plan-tune: wrote %s (%zu NCCL tuner rules); use it with "
                           "NCCL_TUNER_PLUGIN=libnccl-tuner-collplan.so "
                           "COLLPLAN_NCCL_TUNER_FILE=%s\n",
                   s.outputPath.c_str(), rules["rules"].size(),
                   std::filesystem::absolute(s.outputPath).c_str());
    return;
  }
  writeBundle(result, s.outputPath);
  if (!s.quiet)
    std::fprintf(stderr, "plan-tune: wrote %s (%zu tables%s)\n", s.outputPath.c_str(),
                 result.bundle->tables.size(), result.partial() ? ", partial" : "");
}

/// Prints the report and writes the files (on the one process that reports); the exit code.
int report(const TuneSettings &s, const std::string &emit, const TuneResult &result) {
  // Under mpirun (--backend mpi) every process tuned alike and holds the same result; one
  // prints it and writes the files.
  if (!requireBackend(s.backend).reportsLaunches()) return result.bundle ? 0 : 1;
  std::fflush(stderr);
  printReport(stdout, result);
  std::fflush(stdout);
  if (!s.reportDir.empty())
    for (const std::string &path : writeReportFiles(result, s.reportDir))
      if (!s.quiet) std::fprintf(stderr, "plan-tune: wrote %s\n", path.c_str());
  if (!s.outputPath.empty() && result.bundle) writeOutput(s, emit, result);
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

/// An MPI library's tuning from the command line: the library, and the flags it shares with
/// plan tuning. Throws TuneError on what it cannot take.
mpilib::LibraryTuneSettings librarySettings(Request &r, const mpilib::MpiLibrary &library) {
  mpilib::LibraryTuneSettings l;
  l.library = &library;
  const std::string flag = "--backend " + std::string(library.name());
  if (!r.s.topologySpec.empty() || !r.s.algorithms.empty() || !r.schedules.empty())
    throw TuneError(flag + " tunes the library's own algorithms on this machine: --topology, "
                           "--algorithms and --schedule do not apply");
  l.collectives = parseNamedList("--collectives", r.collectives, &parseCollectiveKind,
                                 collectiveKindNames());
  const std::vector<DType> dtypes = parseNamedList("--dtypes", r.dtypes, &parseDType, dtypeNames());
  const std::vector<ReduceOp> ops = parseNamedList("--ops", r.ops, &parseReduceOp, reduceOpNames());
  if (dtypes.size() != 1 || ops.size() != 1)
    throw TuneError(flag + ": one --dtypes and one --ops value (a rules file does not tell "
                           "types apart)");
  l.dtype = dtypes.front();
  l.op = ops.front();
  if (!r.ranks.empty()) l.ranks = r.ranks;
  l.minBytes = measure::parseByteSizeOption("--min-bytes", r.minBytes);
  l.maxBytes = r.maxBytesOption->count()
                   ? measure::parseByteSizeOption("--max-bytes", r.maxBytes)
                   : uint64_t(64) << 20;
  l.quick = r.s.quick;
  l.mpirun = r.mpirun.empty() ? library.defaultMpirun() : r.mpirun;
  l.helper = r.mpiHelper.empty() ? tools::executableDirectory() + "/" + library.helperName()
                                 : r.mpiHelper;
  l.format = r.rulesFormat;
  l.rounds = r.rounds;
  return l;
}

/// The rules of an earlier report, rewritten (--rules-from).
mpilib::LibraryTuneResult rulesFromReport(const std::string &path,
                                          const mpilib::MpiLibrary &library) {
  std::ifstream in(path);
  if (!in) throw TuneError("--rules-from: cannot read " + path);
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw TuneError("--rules-from: " + path + " is not JSON: " + e.what());
  }
  try {
    mpilib::LibraryTuneResult result = mpilib::readLibraryReport(report, path);
    if (result.library != &library)
      throw TuneError("--rules-from: " + path + " measured " +
                      std::string(result.library->name()) + ", not " +
                      std::string(library.name()));
    return result;
  } catch (const std::invalid_argument &e) {
    throw TuneError(std::string("--rules-from: ") + e.what());
  }
}

/// The report files (--report-dir) and the rules file (-o) of an MPI library's tuning.
void writeLibraryFiles(const Request &r, const mpilib::MpiLibrary &library,
                       const mpilib::LibraryTuneResult &result, bool notes) {
  if (!r.s.reportDir.empty()) {
    const std::filesystem::path dir(r.s.reportDir);
    std::filesystem::create_directories(dir);
    writeText(dir / "report.json", mpilib::libraryReportJson(result).dump(1) + "\n");
    writeText(dir / "measurements.csv", mpilib::libraryMeasurementsCsv(result));
    for (const mpilib::LibraryTable &t : result.tables)
      writeText(dir / (std::string(toString(t.benchCase.kind)) + "-n" +
                       std::to_string(t.benchCase.ranks) + ".svg"),
                mpilib::librarySvg(result, t));
    if (notes)
      std::fprintf(stderr, "plan-tune: wrote %s, measurements.csv and %zu SVG plots\n",
                   (dir / "report.json").c_str(), result.tables.size());
  }
  if (!r.s.outputPath.empty()) {
    writeText(r.s.outputPath, mpilib::rulesText(library, result.rules, r.rulesFormat));
    if (notes) {
      std::fprintf(stderr, "plan-tune: wrote %s; load it with:\n ", r.s.outputPath.c_str());
      for (const std::string &var :
           library.rulesEnvironment(std::filesystem::absolute(r.s.outputPath).string()))
        std::fprintf(stderr, " %s", var.c_str());
      std::fprintf(stderr, "\n");
    }
  }
}

/// --backend ompi-tuned|mpich: measure (or read) and write the rules file and the report.
int tuneLibrary(Request &r, const mpilib::MpiLibrary &library) {
  if (r.emit != "bundle")
    throw TuneError("--emit " + r.emit + " maps collplan's winners; --backend " +
                    std::string(library.name()) +
                    " writes that library's rules file (--rules-format)");
  mpilib::LibraryTuneSettings l = librarySettings(r, library);
  const bool notes = !r.s.quiet;
  mpilib::LibraryTuneResult result;
  if (!r.rulesFrom.empty()) {
    result = rulesFromReport(r.rulesFrom, library);
  } else {
    char pattern[] = "/tmp/plan-tune-rules-XXXXXX";
    if (!::mkdtemp(pattern)) throw TuneError("cannot create a temporary directory in /tmp");
    l.workDir = pattern;
    if (notes) l.note = [](const std::string &line) {
      std::fprintf(stderr, "plan-tune: %s\n", line.c_str());
    };
    try {
      result = mpilib::runLibraryTune(l);
    } catch (const std::exception &e) {
      std::filesystem::remove_all(l.workDir);
      throw TuneError(e.what());
    }
    std::filesystem::remove_all(l.workDir);
  }
  printLibraryReport(stdout, result);
  std::fflush(stdout);
  writeLibraryFiles(r, library, result, notes);
  return 0;
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
    if (const mpilib::MpiLibrary *library = mpilib::findMpiLibrary(request.s.backend))
      return tuneLibrary(request, *library);
    if (!request.rulesFrom.empty() || !request.rulesFormat.empty() ||
        request.roundsOption->count())
      throw TuneError("--rules-from, --rules-format and --rounds are for an MPI library's "
                      "rules (--backend " + mpilib::mpiLibraryNames() + ")");
    if (request.emit != "bundle" && request.s.outputPath.empty())
      throw TuneError("--emit " + request.emit + " writes to -o " +
                      (parseInteropFormat(request.emit) ? "DIR" : "FILE") + ": give one");
    const TuneSettings s = checkedSettings(request);
    if (s.outputPath.empty() && !s.quiet && requireBackend(s.backend).reportsLaunches())
      std::fprintf(stderr, "plan-tune: no -o FILE: the report is printed but no bundle will be "
                           "written\n");
    return report(s, request.emit, runTune(s));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "plan-tune: error: %s\n", e.what());
  }
  return 1;
}
