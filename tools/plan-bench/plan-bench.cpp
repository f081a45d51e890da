// plan-bench: runs plans (a plan file, a bundle or the built-in plans) on a backend over a size
// range and prints the nccl-tests table, optionally next to MPI's own collective.
#include "runtime/plan/PlanError.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/sim/SimError.h"
#include "runtime/topology/Resolver.h"
#include "runtime/topology/TopologyError.h"
#include "tuner/bench/RunBench.h"
#include "tuner/bench/BenchReport.h"
#include "tuner/bench/ByteSize.h"
#include "tuner/bench/MpiBaseline.h"
#include "tools/named-algorithm/NamedAlgorithm.h"

#include <CLI/CLI.hpp>

#include <climits>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace collplan;
using namespace collplan::bench;

namespace {

/// A bad command line or input: printed as "plan-bench: <message>", exit status 1.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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

uint64_t parseSize(const std::string &flag, const std::string &text) {
  const std::optional<uint64_t> v = parseByteSize(text);
  if (!v)
    throw UsageError(flag + ": \"" + text +
                     "\" is not a byte size (digits with an optional K, M or G suffix, e.g. 64M)");
  return *v;
}

template <typename T>
T parseName(const char *flag, const std::string &text, std::optional<T> (*parse)(std::string_view),
            const std::string &names) {
  const std::optional<T> v = parse(text);
  if (!v) throw UsageError(std::string(flag) + ": unknown value \"" + text + "\" (expected one of: " + names + ")");
  return *v;
}

/// The directory of this executable, where collplan-mpi-baseline is built.
std::string selfDirectory() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, size_t(n));
  return path.substr(0, path.find_last_of('/'));
}

/// Resolves the case and the plans from the options: a plan file supplies defaults for the
/// collective, op, root and ranks; explicit flags must then agree with it.
BenchCase resolveCase(const Options &o, std::optional<Plan> &planFromFile, int topologyRanks,
                      int bundleRanks) {
  BenchCase c;
  if (!o.planFile.empty()) planFromFile = loadPlanFileForTool(o.planFile, o.loadOptions());
  const Plan *p = planFromFile ? &*planFromFile : nullptr;
  c.kind = !o.collective.empty()
               ? parseName("--collective", o.collective, &parseCollectiveKind, collectiveKindNames())
               : p ? p->collective : CollectiveKind::AllReduce;
  c.dtype = parseName("--dtype", o.dtype, &parseDType, dtypeNames());
  c.op = !o.op.empty() ? parseName("--op", o.op, &parseReduceOp, reduceOpNames())
         : p && p->op  ? *p->op
                       : ReduceOp::Sum;
  c.root = o.root ? *o.root : p ? p->root : 0;
  if (o.ranks) c.ranks = *o.ranks;
  else if (p) c.ranks = p->ranks;
  else if (topologyRanks > 0) c.ranks = topologyRanks;
  else if (bundleRanks > 0) c.ranks = bundleRanks;
  else
    throw UsageError("--ranks is required with " +
                     std::string(o.algorithm.named() ? "--algorithm NAME" : "the built-in plans") +
                     " on backend " + o.backend);
  if (c.ranks < 1 || c.ranks > 4096)
    throw UsageError("--ranks must be between 1 and 4096, got " + std::to_string(c.ranks));
  if (needsRoot(c.kind) && (c.root < 0 || c.root >= c.ranks))
    throw UsageError("--root " + std::to_string(c.root) + " is out of range for " +
                     std::to_string(c.ranks) + " ranks");
  return c;
}

int run(const Options &o) {
  // Sources: exactly one of --plan, --bundle, --algorithm (default: the built-in plans).
  const int sources =
      !o.planFile.empty() + !o.bundleFile.empty() + !o.algorithm.algorithm.empty();
  if (sources > 1) throw UsageError("give one of --plan, --bundle and --algorithm, not several");
  tools::checkAlgorithmRequest(o.algorithm);
  const bool named = o.algorithm.named();
  const Backend *backend = findBackend(o.backend);
  if (!backend)
    throw UsageError("--backend: unknown backend \"" + o.backend + "\" (expected one of: " +
                     backendNames() + ")");
  const bool sim = backend->simulated();
  // A bundle names the backend and topology it was tuned for: a simulation takes its topology,
  // and a run elsewhere is refused unless asked for (then it warns).
  std::shared_ptr<const Bundle> bundle;
  if (!o.bundleFile.empty()) bundle = std::make_shared<const Bundle>(loadBundleFileForTool(o.bundleFile, o.loadOptions()));
  const bool topologyFromBundle = sim && o.topology.empty() && bundle;
  if (topologyFromBundle && bundle->topology.is_null())
    throw UsageError("--backend sim needs --topology SPEC: " + o.bundleFile +
                     " records no topology (" + acceptedTopologySpecs() + ")");
  if (sim && o.topology.empty() && !bundle)
    throw UsageError("--backend sim needs --topology SPEC (" + acceptedTopologySpecs() + ")");
  if (!sim && !named && !o.topology.empty())
    throw UsageError("--topology is only used by --backend sim and --algorithm NAME");
  if (!o.baseline.empty() && o.baseline != "mpi")
    throw UsageError("--baseline: unknown baseline \"" + o.baseline + "\" (expected: mpi)");
  if (!o.baseline.empty() && sim)
    throw UsageError("--baseline mpi runs real processes: use it with a cpu backend, not sim");
  if (o.warmup < 0) throw UsageError("--warmup must be >= 0");
  if (o.reps < 0) throw UsageError("--reps must be >= 1 (or 0 for auto)");
  const std::vector<uint64_t> bytes =
      sizeSweep(parseSize("--min-bytes", o.minBytes), parseSize("--max-bytes", o.maxBytes),
                o.stepFactor);

  std::optional<Topology> topology;
  if (!o.topology.empty()) topology = resolveTopology(o.topology, o.ranks.value_or(0));
  if (topologyFromBundle) topology = topologyFromJson(bundle->topology, o.bundleFile + ": topology");
  if (bundle) {
    std::string why;
    for (const std::string &m : bundleMismatches(*bundle, o.backend, topology ? &*topology : nullptr))
      why += (why.empty() ? "" : "; ") + m;
    if (!why.empty() && !o.allowMismatch)
      throw UsageError(o.bundleFile + ": " + why +
                       " (run it where it was tuned, or pass --allow-mismatch to measure it here)");
    if (!why.empty()) std::fprintf(stderr, "plan-bench: warning: %s: %s\n", o.bundleFile.c_str(), why.c_str());
  }
  std::optional<Plan> planFromFile;
  const BenchCase c = resolveCase(o, planFromFile, topology ? topology->numRanks() : 0,
                                  bundle ? bundle->ranks : 0);
  if (topology && topology->numRanks() != c.ranks)
    throw UsageError("--topology " + o.topology + " has " + std::to_string(topology->numRanks()) +
                     " ranks but the plans need " + std::to_string(c.ranks));
  if (named)
    planFromFile = tools::compileAlgorithmRequest(o.algorithm, c, topology ? &*topology : nullptr);
  const std::string planLabel = named ? tools::describe(o.algorithm) : o.planFile;
  const PlanSource source = planFromFile ? PlanSource::fromPlan(*planFromFile, planLabel, c)
                            : bundle ? PlanSource::fromBundle(bundle, o.bundleFile, c)
                                     : PlanSource::builtIn(c);
  const std::vector<SizePoint> sizes = sizePoints(c, bytes);
  MpiBaselineOptions mpi;
  mpi.mpirun = o.mpirun;
  mpi.helper = o.mpiHelper.empty() ? selfDirectory() + "/collplan-mpi-baseline" : o.mpiHelper;
  if (!o.baseline.empty()) checkMpiBaseline(c, mpi);

  const bool showProgress = !o.quiet && (o.progress || ::isatty(2));
  ProgressFn progress;
  if (showProgress)
    progress = [&](size_t i, const SizePoint &s) {
      if (!backend->reportsLaunches()) return;  // under mpirun: rank 0 alone
      std::fprintf(stderr, "plan-bench: [%zu/%zu] %s (%s)%s", i + 1, sizes.size(),
                   formatBytes(s.bytes).c_str(), o.backend.c_str(), ::isatty(2) ? "        \r" : "\n");
      std::fflush(stderr);
    };
  LoopSettings settings;
  settings.warmup = o.warmup;
  settings.reps = o.reps;
  settings.check = !o.noCheck;
  std::vector<SizeResult> results =
      runBench(*backend, source, c, sizes, settings, progress, topology ? &*topology : nullptr);
  std::vector<double> baseline;
  if (!o.baseline.empty()) {
    if (showProgress) std::fprintf(stderr, "plan-bench: running %s under mpirun...\n", mpiFunctionName(c.kind).c_str());
    baseline = runMpiBaseline(c, sizes, settings, mpi);
  }
  if (showProgress && ::isatty(2)) std::fprintf(stderr, "%60s\r", "");
  // Every rank of a backend whose processes all run plan-bench (mpi under mpirun) has every
  // rank's times; one of them prints.
  const bool report = backend->reportsLaunches();

  std::vector<BenchRow> rows;
  uint64_t wrongSizes = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    BenchRow row;
    row.size = sizes[i];
    row.timeUs = results[i].timeUs;
    if (!sim && settings.check) row.wrong = results[i].wrong;
    row.algorithm = source.planFor(sizes[i].bytes).algorithm;
    if (!baseline.empty()) row.baselineUs = baseline[i];
    wrongSizes += row.wrong && *row.wrong > 0;
    rows.push_back(row);
  }
  BenchInfo info;
  info.benchCase = c;
  info.backend = o.backend;
  info.simulated = sim;
  info.source = source.label();
  info.topology = topologyFromBundle ? o.bundleFile + "'s" : o.topology;
  if (!o.baseline.empty()) info.baseline = mpiFunctionName(c.kind) + " (mpirun -np " + std::to_string(c.ranks) + ")";
  info.warmup = o.warmup;
  info.reps = o.reps;
  if (report && o.json)
    std::printf("%s\n", toJson(info, rows).dump(2).c_str());
  else if (report)
    printTable(stdout, info, rows);
  if (wrongSizes > 0 && report) {
    std::fprintf(stderr, "plan-bench: wrong results at %llu of %zu sizes (see #wrong)\n",
                 static_cast<unsigned long long>(wrongSizes), sizes.size());
  }
  if (wrongSizes > 0) return 3;
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
  app.add_option("--baseline", o.baseline, "\"mpi\": also time MPI's own collective with mpirun");
  app.add_option("--mpirun", o.mpirun, "mpirun command for --baseline mpi")->capture_default_str();
  app.add_option("--mpi-helper", o.mpiHelper, "The collplan-mpi-baseline program (default: next to plan-bench)");
  app.add_flag("--json", o.json, "Print JSON instead of the table");
  app.add_flag("--progress", o.progress, "Progress lines on stderr even when it is not a terminal");
  app.add_flag("--quiet,-q", o.quiet, "No progress on stderr");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "plan-bench: out of memory (the plans or buffers of this run do not fit: "
                         "lower --max-bytes or --ranks)\n");
  } catch (const std::exception &e) {  // usage, PlanError, TopologyError, SimError, RuntimeError
    std::fprintf(stderr, "plan-bench: %s\n", e.what());
  }
  return 1;
}
