// runBenchRequest: checks a benchmark request, picks its plans, runs them and collects the rows.
#include "tuner/bench/BenchRequest.h"

#include "runtime/topology/Resolver.h"
#include "tuner/bench/ByteSize.h"
#include "tuner/bench/NcclBaseline.h"
#include "tuner/bench/PlanSource.h"
#include "tuner/bench/RunBench.h"

#include <memory>

namespace collplan::bench {
namespace {

bool compiles(const BenchRequest &r) { return !r.algorithm.empty() && r.algorithm != "default"; }

/// The collective a request times beside the plans.
enum class BaselineKind { None, Mpi, Nccl };

BaselineKind parseBaseline(const std::string &name) {
  if (name.empty()) return BaselineKind::None;
  if (name == "mpi") return BaselineKind::Mpi;
  if (name == "nccl") return BaselineKind::Nccl;
  throw BenchRequestError("--baseline: unknown baseline \"" + name + "\" (expected: mpi, nccl)");
}

/// A baseline's check (std::invalid_argument) as the request's error.
template <typename Check> void asRequestError(const Check &check) {
  try {
    check();
  } catch (const BenchRequestError &) {
    throw;
  } catch (const std::invalid_argument &e) {
    throw BenchRequestError(e.what());
  }
}

/// --baseline mpi runs MPI's collective on host processes: under an mpirun of its own, or in the
/// launch of a backend that has MPI's collectives (mpi).
void checkMpiBackend(const BenchRequest &r, const Backend &backend) {
  if (backend.simulated())
    throw BenchRequestError(
        "--baseline mpi runs real processes: use it with a cpu backend, not sim");
  if (backend.runsOnDevices())
    throw BenchRequestError("--baseline mpi times MPI on host processes, not the devices of "
                            "--backend " + r.backend + ": use --baseline nccl there");
  if (backend.startedByItsLauncher() && !backend.nativeCollectives())
    throw BenchRequestError("--baseline mpi starts an mpirun of its own, which cannot run beside "
                            "the processes of --backend " + r.backend +
                            ": measure the baseline in a run with a cpu backend");
}

/// The case: a plan file supplies defaults for the collective, op, root and ranks.
BenchCase resolveCase(const BenchRequest &r, const Plan *p, int topologyRanks, int bundleRanks) {
  BenchCase c;
  c.kind = !r.collective.empty()
               ? parseNamed("--collective", r.collective, &parseCollectiveKind, collectiveKindNames())
               : p ? p->collective : CollectiveKind::AllReduce;
  c.dtype = parseNamed("--dtype", r.dtype, &parseDType, dtypeNames());
  c.op = !r.op.empty() ? parseNamed("--op", r.op, &parseReduceOp, reduceOpNames())
         : p && p->op  ? *p->op
                       : ReduceOp::Sum;
  c.root = r.root ? *r.root : p ? p->root : 0;
  if (r.ranks) c.ranks = *r.ranks;
  else if (p) c.ranks = p->ranks;
  else if (topologyRanks > 0) c.ranks = topologyRanks;
  else if (bundleRanks > 0) c.ranks = bundleRanks;
  else
    throw BenchRequestError("--ranks is required with " +
                            std::string(compiles(r) ? "--algorithm NAME" : "the built-in plans") +
                            " on backend " + r.backend);
  if (c.ranks < 1 || c.ranks > 4096)
    throw BenchRequestError("--ranks must be between 1 and 4096, got " + std::to_string(c.ranks));
  if (needsRoot(c.kind) && (c.root < 0 || c.root >= c.ranks))
    throw BenchRequestError("--root " + std::to_string(c.root) + " is out of range for " +
                            std::to_string(c.ranks) + " ranks");
  return c;
}

/// Where the case's rank count came from, for an error that sets it against the topology's.
std::string ranksSource(const BenchRequest &r, const BenchCase &c) {
  const std::string n = std::to_string(c.ranks);
  if (r.ranks) return "--ranks asks for " + n + " ranks";
  if (!r.planFile.empty()) return "the plan " + r.planFile + " has " + n + " ranks";
  return "the plans need " + n + " ranks";
}

/// Where the topology came from and how many ranks it has.
std::string topologySource(const BenchRequest &r, bool fromBundle, int ranks) {
  const std::string n = std::to_string(ranks) + " ranks";
  if (fromBundle) return "the topology recorded in " + r.bundleFile + " has " + n;
  if (!r.topology.empty()) return "--topology " + r.topology + " has " + n;
  return "the job has " + n + " (the processes its launcher started)";
}

/// Checks the options that need no file: sources, backend, topology, baseline, repetitions.
BaselineKind checkRequest(const BenchRequest &r, const Backend &backend, bool haveBundle) {
  const bool sim = backend.simulated();
  if (sim && r.topology.empty() && !haveBundle)
    throw BenchRequestError("--backend sim needs --topology SPEC (" + acceptedTopologySpecs() + ")");
  if (!sim && !compiles(r) && !r.topology.empty())
    throw BenchRequestError("--topology is only used by --backend sim and --algorithm NAME");
  const BaselineKind baseline = parseBaseline(r.baseline);
  if (baseline == BaselineKind::Mpi) checkMpiBackend(r, backend);
  if (baseline == BaselineKind::Nccl) asRequestError([&] { checkNcclBackend(backend); });
  if (r.warmup < 0) throw BenchRequestError("--warmup must be >= 0");
  if (r.reps < 0) throw BenchRequestError("--reps must be >= 1 (or 0 for auto)");
  return baseline;
}

/// Checks that the baseline can run the case, before anything is measured. Returns the
/// backend's own collectives where the MPI baseline runs in its launch (mpi), else nullptr.
const NativeCollectives *checkBaseline(BaselineKind baseline, const BenchRequest &r,
                                       const Backend &backend, const BenchCase &c) {
  if (baseline == BaselineKind::Nccl) asRequestError([&] { checkNcclBaseline(c, backend); });
  if (baseline != BaselineKind::Mpi) return nullptr;
  // On the mpi backend, MPI's collectives run in this launch, on the job's own processes;
  // elsewhere the baseline is a separate mpirun of the helper.
  const NativeCollectives *native = backend.nativeCollectives();
  if (!native) {
    checkMpiBaseline(c, r.mpi);
    return nullptr;
  }
  try {
    native->check(c.kind, c.dtype);
  } catch (const std::invalid_argument &e) {
    throw BenchRequestError(std::string("--baseline mpi: ") + e.what());
  }
  return native;
}

/// A baseline's time per size (µs) and what the report calls it.
struct BaselineTimes {
  std::vector<double> us;  ///< empty: no baseline
  std::string label;       ///< "MPI_Allreduce (mpirun -np 4)"
  std::string column;      ///< "mpi": the table's "mpi(us)"
};

/// A bundle names the backend and topology it was tuned for: a run elsewhere is refused unless
/// allowed (then it is a note).
void checkBundleFits(const BenchRequest &r, const Bundle &bundle, const Topology *topology) {
  std::string why;
  for (const std::string &m : bundleMismatches(bundle, r.backend, topology))
    why += (why.empty() ? "" : "; ") + m;
  if (why.empty()) return;
  if (!r.allowMismatch)
    throw BenchRequestError(r.bundleFile + ": " + why +
                            " (run it where it was tuned, or pass --allow-mismatch to measure it "
                            "here)");
  if (r.note) r.note("warning: " + r.bundleFile + ": " + why);
}

/// Each size's median time (µs).
std::vector<double> medians(const std::vector<SizeResult> &results) {
  std::vector<double> out;
  for (const SizeResult &r : results) out.push_back(r.timeUs);
  return out;
}

/// Runs the baseline the request asks for (checked by checkBaseline) on every size.
BaselineTimes runBaseline(BaselineKind baseline, const NativeCollectives *native,
                          const BenchRequest &r, const Backend &backend, const BenchCase &c,
                          const std::vector<SizePoint> &sizes, const LoopSettings &settings) {
  BaselineTimes out;
  const auto note = [&](const std::string &line) {
    if (r.note && backend.reportsLaunches()) r.note(line);
  };
  switch (baseline) {
  case BaselineKind::None: break;
  case BaselineKind::Mpi:
    out.column = "mpi";
    if (native) {
      note("running " + native->functionName(c.kind) + "...");
      out.us = medians(runNativeBench(backend, c, sizes, settings));
      out.label = native->functionName(c.kind) + " (the same launch)";
    } else {
      note("running " + std::string(mpiFunctionName(c.kind)) + " under mpirun...");
      out.us = runMpiBaseline(c, sizes, settings, r.mpi);
      out.label = std::string(mpiFunctionName(c.kind)) + " (mpirun -np " +
                  std::to_string(c.ranks) + ")";
    }
    break;
  case BaselineKind::Nccl:
    out.column = "nccl";
    note("running " + ncclFunctionName(c.kind) + "...");
    out.us = runNcclBaseline(backend, c, sizes, settings);
    out.label = ncclFunctionName(c.kind) + " (" + ncclVersion() + ", the same devices)";
    break;
  }
  return out;
}

}  // namespace

BenchOutcome runBenchRequest(const BenchRequest &r) {
  const int sources = !r.planFile.empty() + !r.bundleFile.empty() + !r.algorithm.empty();
  if (sources > 1)
    throw BenchRequestError("give one of --plan, --bundle and --algorithm, not several");
  if (compiles(r) && !r.compiler)
    throw BenchRequestError("--algorithm " + r.algorithm + " needs the compiler, which this " +
                            "caller does not provide");
  if (r.compiler && r.compiler->check) r.compiler->check();
  const Backend *backend = findBackend(r.backend);
  if (!backend)
    throw BenchRequestError("--backend: unknown backend \"" + r.backend + "\" (expected one of: " +
                            backendNames() + ")");
  const bool sim = backend->simulated();
  std::shared_ptr<const Bundle> bundle;
  if (!r.bundleFile.empty())
    bundle = std::make_shared<const Bundle>(loadBundleFileForTool(r.bundleFile, r.load));
  const bool topologyFromBundle = sim && r.topology.empty() && bundle;
  if (topologyFromBundle && bundle->topology.is_null())
    throw BenchRequestError("--backend sim needs --topology SPEC: " + r.bundleFile +
                            " records no topology (" + acceptedTopologySpecs() + ")");
  const BaselineKind baselineKind = checkRequest(r, *backend, bundle != nullptr);
  const std::vector<uint64_t> bytes = sizeSweep(r.minBytes, r.maxBytes, r.stepFactor);

  std::optional<Topology> topology;
  if (!r.topology.empty()) topology = resolveTopology(r.topology, r.ranks.value_or(0));
  else if (!sim) topology = backend->launchTopology();  // the job's own (mpi), or none
  if (topologyFromBundle)
    topology = topologyFromJson(bundle->topology, r.bundleFile + ": topology");
  if (bundle) checkBundleFits(r, *bundle, topology ? &*topology : nullptr);
  std::optional<Plan> plan;
  if (!r.planFile.empty()) plan = loadPlanFileForTool(r.planFile, r.load);
  const BenchCase c = resolveCase(r, plan ? &*plan : nullptr, topology ? topology->numRanks() : 0,
                                  bundle ? bundle->ranks : 0);
  if (topology && topology->numRanks() != c.ranks)
    throw BenchRequestError(ranksSource(r, c) + " but " +
                            topologySource(r, topologyFromBundle, topology->numRanks()));
  if (compiles(r)) plan = r.compiler->compile(c, topology ? &*topology : nullptr);
  const std::string planLabel = compiles(r) ? r.compiler->label : r.planFile;
  const PlanSource source = plan     ? PlanSource::fromPlan(*plan, planLabel, c)
                            : bundle ? PlanSource::fromBundle(bundle, r.bundleFile, c)
                                     : PlanSource::builtIn(c);
  const std::vector<SizePoint> sizes = sizePoints(c, bytes);
  const NativeCollectives *native = checkBaseline(baselineKind, r, *backend, c);

  ProgressFn progress;
  if (r.progress)
    progress = [&](size_t i, const SizePoint &s) {
      if (backend->reportsLaunches()) r.progress(i, sizes.size(), s);
    };
  LoopSettings settings;
  settings.warmup = r.warmup;
  settings.reps = r.reps;
  settings.check = r.check;
  const std::vector<SizeResult> results =
      runBench(*backend, source, c, sizes, settings, progress, topology ? &*topology : nullptr);
  const BaselineTimes baseline =
      runBaseline(baselineKind, native, r, *backend, c, sizes, settings);

  BenchOutcome out;
  out.reports = backend->reportsLaunches();
  for (size_t i = 0; i < sizes.size(); ++i) {
    BenchRow row;
    row.size = sizes[i];
    row.timeUs = results[i].timeUs;
    if (!sim && settings.check) row.wrong = results[i].wrong;
    row.algorithm = source.planFor(sizes[i].bytes).algorithm;
    if (!baseline.us.empty()) row.baselineUs = baseline.us[i];
    out.wrongSizes += row.wrong && *row.wrong > 0;
    out.rows.push_back(row);
  }
  BenchInfo &info = out.info;
  info.benchCase = c;
  info.backend = r.backend;
  info.simulated = sim;
  info.onDevices = backend->runsOnDevices();
  info.source = source.label();
  info.topology = topologyFromBundle ? r.bundleFile + "'s" : r.topology;
  info.baseline = baseline.label;
  info.baselineColumn = baseline.column;
  info.warmup = r.warmup;
  info.reps = r.reps;
  return out;
}

}  // namespace collplan::bench
