// plan-bench: runs plans (a plan file, a bundle or the built-in plans) on a backend over a size
// range and prints the nccl-tests table, optionally next to MPI's or NCCL's own collective.
#include "runtime/backends/Backend.h"
#include "runtime/topology/Resolver.h"
#include "tools/named-algorithm/NamedAlgorithm.h"
#include "tuner/measure/BenchRequest.h"
#include "tuner/measure/ByteSize.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

using namespace collplan;
using namespace collplan::measure;

namespace {

struct Options {
  std::string planFile, bundleFile;
  tools::AlgorithmRequest algorithm;  ///< --algorithm and its --param list
  std::string collective, dtype = "f32", op, backend = "cpu-threads", topology;
  std::optional<int> root, ranks;
  std::string minBytes = "8", maxBytes = "64M";
  int64_t stepFactor = 2;  ///< signed, so "-1" is refused rather than wrapped
  int warmup = 3, reps = 0;
  bool noCheck = false, json = false, progress = false, quiet = false, allowMismatch = false;
  bool noVerify = false;
  std::string baseline, mpirun = "mpirun", mpiHelper;

  PlanLoadOptions loadOptions() const {
    PlanLoadOptions options;
    options.verify = !noVerify;
    return options;
  }
};

BenchRequest toRequest(const Options &o) {
  BenchRequest r;
  r.planFile = o.planFile;
  r.bundleFile = o.bundleFile;
  r.algorithm = o.algorithm.algorithm;
  r.compiler = tools::benchCompiler(o.algorithm);
  r.collective = o.collective;
  r.dtype = o.dtype;
  r.op = o.op;
  r.root = o.root;
  r.ranks = o.ranks;
  r.backend = o.backend;
  r.topology = o.topology;
  r.allowMismatch = o.allowMismatch;
  r.minBytes = parseByteSizeOption("--min-bytes", o.minBytes);
  r.maxBytes = parseByteSizeOption("--max-bytes", o.maxBytes);
  r.stepFactor = o.stepFactor;
  r.warmup = o.warmup;
  r.reps = o.reps;
  r.check = !o.noCheck;
  r.load = o.loadOptions();
  r.baseline = o.baseline;
  r.baselineOptions.mpirun = o.mpirun;
  r.baselineOptions.mpiHelper =
      o.mpiHelper.empty() ? tools::executableDirectory() + "/collplan-mpi-baseline" : o.mpiHelper;
  return r;
}

int run(const Options &o) {
  BenchRequest request = toRequest(o);
  const bool showProgress = !o.quiet && (o.progress || ::isatty(2));
  if (showProgress)
    request.progress = [&](size_t i, size_t sizes, const SizePoint &s) {
      std::fprintf(stderr, "plan-bench: [%zu/%zu] %s (%s)%s", i + 1, sizes, formatBytes(s.bytes).c_str(),
                   o.backend.c_str(), ::isatty(2) ? "        \r" : "\n");
      std::fflush(stderr);
    };
  request.note = [&](const std::string &line) {
    if (showProgress || line.rfind("warning: ", 0) == 0)
      std::fprintf(stderr, "plan-bench: %s\n", line.c_str());
  };
  const BenchOutcome outcome = runBenchRequest(request);
  if (showProgress && ::isatty(2)) std::fprintf(stderr, "%60s\r", "");
  // Under mpirun every process runs plan-bench and has every rank's times; one of them prints.
  if (!outcome.reports) return outcome.wrongSizes > 0 ? 3 : 0;
  if (o.json)
    std::printf("%s\n", toJson(outcome.info, outcome.rows).dump(2).c_str());
  else
    printTable(stdout, outcome.info, outcome.rows);
  if (outcome.wrongSizes > 0) {
    std::fprintf(stderr, "plan-bench: wrong results at %llu of %zu sizes (see #wrong)\n",
                 static_cast<unsigned long long>(outcome.wrongSizes), outcome.rows.size());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"plan-bench: run collplan plans on a backend over a size range and print the "
               "nccl-tests table (size count type redop root time algbw busbw #wrong)"};
  Options o;
  app.add_option("--plan", o.planFile, "Plan file to run at every size");
  app.add_option("--bundle", o.bundleFile, "Bundle: each size runs its bucket's plan");
  tools::addAlgorithmOptions(app, o.algorithm,
                             "the runtime's built-in plans (the default when no plan or bundle "
                             "is given)");
  app.add_option("--collective,-c", o.collective, "Collective (default: the plan's, else allreduce)");
  app.add_option("--dtype,-d", o.dtype, "Element type: " + dtypeNames())->capture_default_str();
  app.add_option("--op,-o", o.op, "Reduction op: " + reduceOpNames() + " (default: the plan's, else sum)");
  app.add_option("--root,-r", o.root, "Root of rooted collectives (default: the plan's, else 0)");
  app.add_option("--ranks,-n", o.ranks, "Ranks (default: the plan's, the bundle's or the topology's)");
  app.add_option("--backend", o.backend, "Backend: " + backendNames())->capture_default_str();
  app.add_flag("--allow-mismatch", o.allowMismatch,
               "Run a bundle on another backend or topology than it was tuned for (warns)");
  app.add_option("--topology", o.topology,
                 "Topology for --backend sim (default: the bundle's), and for compiling --algorithm NAME: " +
                     acceptedTopologySpecs());
  app.add_option("--min-bytes,-b", o.minBytes, "Smallest message M (K, M, G suffixes)")->capture_default_str();
  app.add_option("--max-bytes,-e", o.maxBytes, "Largest message M")->capture_default_str();
  app.add_option("--step-factor,-f", o.stepFactor, "Multiply the size by this between rows")->capture_default_str();
  app.add_option("--warmup,-w", o.warmup, "Untimed calls per size")->capture_default_str();
  app.add_option("--reps", o.reps, "Timed calls per size (0: auto, fewer for larger sizes)")->capture_default_str();
  app.add_flag("--no-check", o.noCheck, "Skip the correctness check (#wrong shows N/A)");
  app.add_flag("--no-verify", o.noVerify,
               "Load plan and bundle files without proving them (plan-verify): for trusted files, "
               "or to measure a plan known to be wrong");
  app.add_option("--baseline", o.baseline,
                 "Also time the library's own collective: \"mpi\" (MPI's, under mpirun; in the "
                 "same launch with --backend mpi) or \"nccl\" (NCCL's, on the same GPUs with "
                 "--backend cuda and one device per rank in COLLPLAN_CUDA_DEVICES)");
  app.add_option("--mpirun", o.mpirun, "mpirun command for --baseline mpi")->capture_default_str();
  app.add_option("--mpi-helper", o.mpiHelper, "The collplan-mpi-baseline program (default: next to plan-bench)");
  app.add_flag("--json", o.json, "Print JSON instead of the table");
  app.add_flag("--progress", o.progress, "Progress lines on stderr even when it is not a terminal");
  app.add_flag("--quiet,-q", o.quiet, "No progress on stderr");
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;
  try {
    tools::registerSchedules(o.algorithm);
    return run(o);
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "plan-bench: out of memory (the plans or buffers of this run do not fit: "
                         "lower --max-bytes or --ranks)\n");
  } catch (const std::exception &e) {  // usage, PlanError, TopologyError, SimError, RuntimeError
    std::fprintf(stderr, "plan-bench: %s\n", e.what());
  }
  return 1;
}
