// runBenchRequest: checks a benchmark request, picks its plans, runs them and collects the rows.
#include "tuner/measure/BenchRequest.h"

#include "runtime/topology/Resolver.h"
#include "tuner/measure/ByteSize.h"
#include "tuner/measure/PlanSource.h"

#include <memory>

namespace collplan::measure {
namespace {

bool compiles(const BenchRequest &r) { return !r.algorithm.empty() && r.algorithm != "default"; }

/// A check's std::invalid_argument as the request's error.
template <typename Check> void asRequestError(const Check &check) {
  try {
    check();
  } catch (const BenchRequestError &) {
    throw;
  } catch (const std::invalid_argument &e) {
    throw BenchRequestError(e.what());
  }
}

/// At most one source of plans, and the compiler where one is named.
void checkSources(const BenchRequest &r) {
  const int sources = !r.planFile.empty() + !r.bundleFile.empty() + !r.algorithm.empty();
  if (sources > 1)
    throw BenchRequestError("give one of --plan, --bundle and --algorithm, not several");
  if (compiles(r) && !r.compiler)
    throw BenchRequestError("--algorithm " + r.algorithm + " needs the compiler, which this " +
                            "caller does not provide");
  if (r.compiler && r.compiler->check) r.compiler->check();
}

const Backend &backendOf(const BenchRequest &r) {
  if (const Backend *backend = findBackend(r.backend)) return *backend;
  throw BenchRequestError("--backend: unknown backend \"" + r.backend + "\" (expected one of: " +
                          backendNames() + ")");
}

/// The baseline the request names, or nullptr for none; checked against the backend.
const Baseline *baselineOf(const BenchRequest &r, const Backend &backend) {
  if (r.baseline.empty()) return nullptr;
  const Baseline *baseline = findBaseline(r.baseline);
  if (!baseline)
    throw BenchRequestError("--baseline: unknown baseline \"" + r.baseline + "\" (expected: " +
                            baselineNames() + ")");
  asRequestError([&] { baseline->checkBackend(backend); });
  return baseline;
}

/// A simulated backend times plans on a topology (--topology, else the bundle's); elsewhere a
/// topology serves only a compile.
bool topologyFromBundle(const BenchRequest &r, const Backend &backend, const Bundle *bundle) {
  return backend.simulated() && r.topology.empty() && bundle;
}

/// Checks the options that need no file: the topology, the repetitions.
void checkRequest(const BenchRequest &r, const Backend &backend, const Bundle *bundle) {
  const bool sim = backend.simulated();
  if (sim && r.topology.empty() && !bundle)
    throw BenchRequestError("--backend sim needs --topology SPEC (" + acceptedTopologySpecs() + ")");
  if (topologyFromBundle(r, backend, bundle) && bundle->topology.is_null())
    throw BenchRequestError("--backend sim needs --topology SPEC: " + r.bundleFile +
                            " records no topology (" + acceptedTopologySpecs() + ")");
  if (!sim && !compiles(r) && !r.topology.empty())
    throw BenchRequestError("--topology is only used by --backend sim and --algorithm NAME");
  if (r.warmup < 0) throw BenchRequestError("--warmup must be >= 0");
  if (r.reps < 0) throw BenchRequestError("--reps must be >= 1 (or 0 for auto)");
}

/// The topology plans are timed or compiled on: --topology, the bundle's (sim), or the one the
/// backend's launcher gives its job (mpi); none otherwise.
std::optional<Topology> topologyOf(const BenchRequest &r, const Backend &backend,
                                   const Bundle *bundle) {
  if (!r.topology.empty()) return resolveTopology(r.topology, r.ranks.value_or(0));
  if (topologyFromBundle(r, backend, bundle))
    return topologyFromJson(bundle->topology, r.bundleFile + ": topology");
  if (!backend.simulated()) return backend.launchTopology();  // the job's own (mpi), or none
  return std::nullopt;
}

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

/// The topology's rank count must be the case's.
void checkTopologyRanks(const BenchRequest &r, bool fromBundle, const Topology &topology,
                        const BenchCase &c) {
  if (topology.numRanks() == c.ranks) return;
  throw BenchRequestError(ranksSource(r, c) + " but " +
                          topologySource(r, fromBundle, topology.numRanks()));
}

/// Everything a request names, loaded and checked before anything runs.
struct Resolved {
  const Backend *backend = nullptr;
  const Baseline *baseline = nullptr;
  std::shared_ptr<const Bundle> bundle;
  std::optional<Topology> topology;
  BenchCase benchCase;
  std::optional<PlanSource> source;
  std::vector<SizePoint> sizes;
};

/// The request's plans: `plan` (a plan file's), a named algorithm compiled, a bundle or the
/// built-ins.
PlanSource sourceOf(const BenchRequest &r, const Resolved &in, std::optional<Plan> plan) {
  const BenchCase &c = in.benchCase;
  if (compiles(r)) {
    const Plan compiled = r.compiler->compile(c, in.topology ? &*in.topology : nullptr);
    return PlanSource::fromPlan(compiled, r.compiler->label, c);
  }
  if (plan) return PlanSource::fromPlan(std::move(*plan), r.planFile, c);
  if (in.bundle) return PlanSource::fromBundle(in.bundle, r.bundleFile, c);
  return PlanSource::builtIn(c, in.topology ? in.topology->numNodes() : 1);
}

Resolved resolve(const BenchRequest &r) {
  checkSources(r);
  Resolved out;
  out.backend = &backendOf(r);
  if (!r.bundleFile.empty())
    out.bundle = std::make_shared<const Bundle>(loadBundleFileForTool(r.bundleFile, r.load));
  checkRequest(r, *out.backend, out.bundle.get());
  out.baseline = baselineOf(r, *out.backend);
  const std::vector<uint64_t> bytes = sizeSweep(r.minBytes, r.maxBytes, r.stepFactor);
  out.topology = topologyOf(r, *out.backend, out.bundle.get());
  if (out.bundle) checkBundleFits(r, *out.bundle, out.topology ? &*out.topology : nullptr);
  std::optional<Plan> plan;
  if (!r.planFile.empty()) plan = loadPlanFileForTool(r.planFile, r.load);
  out.benchCase = resolveCase(r, plan ? &*plan : nullptr,
                              out.topology ? out.topology->numRanks() : 0,
                              out.bundle ? out.bundle->ranks : 0);
  if (out.topology)
    checkTopologyRanks(r, topologyFromBundle(r, *out.backend, out.bundle.get()), *out.topology,
                       out.benchCase);
  out.source = sourceOf(r, out, std::move(plan));
  out.sizes = sizePoints(out.benchCase, bytes);
  return out;
}

/// What the header and the JSON say about a run of `in` on `runner`.
BenchInfo infoOf(const BenchRequest &r, const Resolved &in, const Runner &runner,
                 const BaselineTimes &baseline) {
  BenchInfo info;
  info.benchCase = in.benchCase;
  info.backend = r.backend;
  info.timing = runner.exact() ? "time = " + runner.timeMeaning() + "; #wrong is not checked (N/A)"
                               : std::to_string(r.warmup) + " warm-up, " +
                                     (r.reps > 0 ? std::to_string(r.reps) : "auto") +
                                     " timed calls per size; time = median of " +
                                     runner.timeMeaning();
  info.source = in.source->label();
  info.topology = topologyFromBundle(r, *in.backend, in.bundle.get()) ? r.bundleFile + "'s"
                                                                      : r.topology;
  info.baseline = baseline.label;
  info.baselineColumn = in.baseline ? std::string(in.baseline->name()) : "";
  info.warmup = r.warmup;
  info.reps = r.reps;
  return info;
}

/// One row per size: the plans' times (#wrong where checked) and the baseline's.
BenchOutcome collect(const Resolved &in, bool checked, const std::vector<SizeResult> &results,
                     const BaselineTimes &baseline) {
  BenchOutcome out;
  out.reports = in.backend->reportsLaunches();
  for (size_t i = 0; i < in.sizes.size(); ++i) {
    BenchRow row;
    row.size = in.sizes[i];
    row.timeUs = results[i].timeUs;
    if (checked) row.wrong = results[i].wrong;
    row.algorithm = in.source->planFor(in.sizes[i].bytes).algorithm;
    if (!baseline.us.empty()) row.baselineUs = baseline.us[i];
    out.wrongSizes += row.wrong && *row.wrong > 0;
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace

BenchOutcome runBenchRequest(const BenchRequest &r) {
  const Resolved in = resolve(r);
  const BenchCase &c = in.benchCase;
  const std::unique_ptr<Runner> runner =
      makeRunner(*in.backend, in.topology ? &*in.topology : nullptr);
  if (in.baseline)
    asRequestError([&] { in.baseline->checkCase(*runner, c, r.baselineOptions); });
  const bool speaks = in.backend->reportsLaunches();
  ProgressFn progress;
  if (r.progress)
    progress = [&](size_t i, const SizePoint &s) {
      if (speaks) r.progress(i, in.sizes.size(), s);
    };
  LoopSettings settings;
  settings.warmup = r.warmup;
  settings.reps = r.reps;
  settings.check = r.check;
  const std::vector<SizeResult> results = runner->run(*in.source, c, in.sizes, settings, progress);
  BaselineTimes baseline;
  if (in.baseline)
    baseline = in.baseline->run(*runner, c, in.sizes, settings, r.baselineOptions,
                                [&](const std::string &line) {
                                  if (r.note && speaks) r.note(line);
                                });
  BenchOutcome out = collect(in, !runner->exact() && settings.check, results, baseline);
  out.info = infoOf(r, in, *runner, baseline);
  return out;
}

}  // namespace collplan::measure
