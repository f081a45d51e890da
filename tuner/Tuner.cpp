// runTune: the tuner's pipeline from settings to a bundle, and writeBundle.
#include "tuner/Tuner.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanError.h"
#include "runtime/topology/Resolver.h"
#include "tuner/Measure.h"
#include "tuner/bench/ByteSize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace collplan::tune {
namespace {

void say(const TuneSettings &s, ProgressBar &bar, const std::string &line) {
  if (!s.quiet) bar.note(line);
}

/// A file we are about to write must be writable: fail before hours of measuring, not after.
void checkWritableFile(const std::string &flag, const std::string &path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec))
    throw TuneError(flag + " " + path + ": is a directory, expected a file path");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw TuneError(flag + " " + path + ": cannot write: directory " + dir.string() +
                    " does not exist");
  if (fs::exists(p, ec) ? ::access(p.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0)
    throw TuneError(flag + " " + path + ": cannot write: permission denied");
}

void prepareReportDir(const std::string &dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw TuneError("--report-dir " + dir + ": cannot create the directory" +
                    (ec ? ": " + ec.message() : std::string()));
  if (::access(dir.c_str(), W_OK) != 0)
    throw TuneError("--report-dir " + dir + ": cannot write: permission denied");
}

/// The topology `s` names, with its spec in `spec` (an empty one resolved: "job" or "local"),
/// and its rank count in `ranks`.
Topology resolveFor(const TuneSettings &s, std::string &spec, int &ranks) {
  Topology topology;
  spec = s.topologySpec;
  std::optional<Topology> job;
  if (spec.empty()) job = requireBackend(s.backend).launchTopology();
  if (job) {
    spec = "job";
    topology = std::move(*job);
  } else {
    if (spec.empty()) spec = "local";
    int hint = s.ranks;
    if (spec == "local" && hint == 0) hint = std::max(2, int(std::thread::hardware_concurrency()));
    try {
      topology = resolveTopology(spec, hint);
    } catch (const std::exception &e) {
      throw TuneError(std::string("--topology: ") + e.what());
    }
  }
  ranks = topology.numRanks();
  if (s.ranks > 0 && ranks != s.ranks)
    throw TuneError("--topology " + spec + " has " + std::to_string(ranks) +
                    " ranks but --ranks is " + std::to_string(s.ranks));
  if (ranks < 2) throw TuneError("--ranks: collectives need at least 2 ranks, got " +
                                 std::to_string(ranks));
  return topology;
}

/// The spec compiled for a table (plans do not depend on the dtype).
CollectiveSpec specOf(const bench::BenchCase &c) {
  CollectiveSpec spec;
  spec.kind = c.kind;
  spec.ranks = c.ranks;
  if (needsReduceOp(c.kind)) spec.op = c.op;
  spec.root = needsRoot(c.kind) ? c.root : 0;
  return spec;
}

/// α-β for predictions: the topology's; on a CPU backend refitted from two quick measurements of
/// the plan with the fewest α-rounds (the simulator follows the topology by construction).
AlphaBeta chooseAlphaBeta(const TuneSettings &s, const Topology &topology,
                          const Measurer &measurer, const std::vector<TableResult> &tables) {
  AlphaBeta fallback = alphaBetaFromTopology(topology);
  if (measurer.backend().simulated()) return fallback;
  for (const TableResult &t : tables) {
    const CompiledVariant *probe = nullptr;
    for (size_t i = 0; i < t.variants.size(); ++i) {
      const CompiledVariant &v = t.variants[i];
      if (t.measurements.eligible[i] && v.beta > 0 && (!probe || v.alphaRounds < probe->alphaRounds))
        probe = &v;
    }
    if (!probe) continue;
    try {
      const std::vector<bench::SizePoint> points =
          bench::sizePoints(t.benchCase, {1, uint64_t(1) << 20});
      if (points.size() < 2) continue;
      const Measurement small = measurer.measure(probe->plan, t.benchCase, points[0], true);
      const Measurement large = measurer.measure(probe->plan, t.benchCase, points[1], true);
      AlphaBeta ab = fitAlphaBeta(probe->alphaRounds, probe->beta, small.medianUs,
                                  large.medianUs, double(points[1].bytes), fallback);
      ab.source += "; probe " + probe->variant.label + " (" + t.name() + ")";
      return ab;
    } catch (const std::exception &e) {
      fallback.source += std::string(" (measured fit failed: ") + e.what() + ")";
      return fallback;
    }
  }
  return fallback;
}

/// A size counts only when every variant planned for it was measured (or dropped): a partial
/// run never crowns a winner among a subset.
void dropUnfinishedSizes(TableResult &t, const std::vector<std::vector<bool>> &planned) {
  for (size_t s = 0; s < t.measurements.sizes.size(); ++s) {
    bool finished = true;
    for (size_t v = 0; v < t.variants.size(); ++v)
      if (planned[v][s] && t.measurements.eligible[v] && !t.measurements.byVariant[v][s].done)
        finished = false;
    if (!finished) t.choices[s] = SizeChoice{};
  }
}

}  // namespace

std::string TableResult::name() const {
  std::string s = std::string(toString(benchCase.kind)) + " " + std::string(toString(benchCase.dtype));
  if (needsReduceOp(benchCase.kind)) s += " " + std::string(toString(benchCase.op));
  if (needsRoot(benchCase.kind)) s += " root " + std::to_string(benchCase.root);
  return s;
}

int TableResult::measuredVariants() const {
  int n = 0;
  for (const auto &row : measurements.byVariant)
    n += std::any_of(row.begin(), row.end(), [](const Measurement &m) { return m.done; });
  return n;
}

int TableResult::notesCount(const std::string &status) const {
  return int(std::count_if(notes.begin(), notes.end(),
                           [&](const VariantNote &n) { return n.status == status; }));
}

void validateSettings(const TuneSettings &s) {
  if (!findBackend(s.backend))
    throw TuneError("--backend: unknown backend \"" + s.backend + "\" (expected one of: " +
                    backendNames() + ")");
  if (s.collectives.empty()) throw TuneError("--collectives: nothing to tune");
  if (s.dtypes.empty()) throw TuneError("--dtypes: nothing to tune");
  if (s.ops.empty()) throw TuneError("--ops: nothing to tune");
  if (s.ranks < 0) throw TuneError("--ranks must be at least 2, got " + std::to_string(s.ranks));
  if (!(s.budgetSeconds >= 0) || std::isinf(s.budgetSeconds))  // also refuses nan
    throw TuneError("--budget must be a finite number of seconds >= 0 (0: no limit), got " +
                    (std::ostringstream() << s.budgetSeconds).str());
  if (s.budgetSeconds > 0 && findBackend(s.backend)->startedByItsLauncher())
    throw TuneError("--budget cannot be used with --backend " + s.backend +
                    ": each process would decide alone when it is spent and stop at another "
                    "variant than its peers (use --quick or fewer --algorithms to tune faster)");
  try {
    (void)bench::sizeSweep(s.minBytes, s.maxBytes, 2);
  } catch (const std::invalid_argument &e) {
    throw TuneError(e.what());
  }
  const std::vector<std::string> unknown = unknownAlgorithms(s.algorithms);
  if (!unknown.empty())
    throw TuneError("--algorithms: unknown algorithm '" + unknown.front() +
                    "' (known: " + algorithmNames() + ")");
  for (const std::string &name : s.algorithms) {
    const AlgorithmInfo *a = findAlgorithm(name);
    bool any = false;
    for (CollectiveKind k : s.collectives) any = any || a->supports(k);
    if (!any)
      throw TuneError("--algorithms: '" + name + "' implements none of the requested collectives");
  }
  for (CollectiveKind k : s.collectives)
    if (needsRoot(k) && s.root < 0) throw TuneError("--root must be >= 0");
  if (!s.outputPath.empty()) checkWritableFile("-o", s.outputPath);
  if (!s.reportDir.empty()) prepareReportDir(s.reportDir);
}

TuneResult runTune(const TuneSettings &given) {
  validateSettings(given);
  // Under mpirun every process tunes alike; only the one that reports speaks.
  TuneSettings settings = given;
  if (!requireBackend(settings.backend).reportsLaunches()) settings.quiet = true;
  const auto wallStart = std::chrono::steady_clock::now();
  TuneResult result;
  result.settings = settings;
  result.topology = resolveFor(settings, result.settings.topologySpec, result.ranks);
  result.fingerprint = result.topology.fingerprint();
  for (CollectiveKind k : settings.collectives)
    if (needsRoot(k) && settings.root >= result.ranks)
      throw TuneError("--root " + std::to_string(settings.root) + " is out of range for " +
                      std::to_string(result.ranks) + " ranks");

  const bool terminal = ::isatty(2);
  ProgressBar bar(!settings.quiet && (terminal || settings.progress), terminal);
  const std::vector<uint64_t> requested = bench::sizeSweep(settings.minBytes, settings.maxBytes, 2);
  const Measurer measurer(requireBackend(settings.backend), result.topology, settings.quick);
  // A backend on devices opens them once first, so a machine without one fails at once, saying
  // why, instead of once per variant.
  if (measurer.backend().runsOnDevices()) {
    try {
      (void)measurer.backend().openDeviceJob(result.ranks);
    } catch (const std::exception &e) {
      throw TuneError("--backend " + settings.backend + ": " + e.what());
    }
  }

  // 1. Tables, and the variants of each (kind, op) compiled once: plans are dtype-independent.
  std::map<std::pair<int, int>, VariantSet> compiled;
  for (CollectiveKind kind : settings.collectives)
    for (DType dtype : settings.dtypes) {
      std::vector<ReduceOp> ops = settings.ops;
      if (!needsReduceOp(kind)) ops = {ReduceOp::Sum};  // ignored: one table per dtype
      for (ReduceOp op : ops) {
        TableResult t;
        t.benchCase.kind = kind;
        t.benchCase.dtype = dtype;
        t.benchCase.op = op;
        t.benchCase.root = needsRoot(kind) ? settings.root : 0;
        t.benchCase.ranks = result.ranks;
        const std::pair<int, int> key{int(kind), needsReduceOp(kind) ? int(op) : -1};
        if (!compiled.count(key)) {
          const CollectiveSpec spec = specOf(t.benchCase);
          const std::vector<Variant> variants =
              enumerateVariants(spec, &result.topology, settings.algorithms, settings.quick);
          if (!settings.quiet)
            bar.note("plan-tune: compiling " + std::to_string(variants.size()) + " variants of " +
                     std::string(toString(kind)) + " on " + std::to_string(result.ranks) +
                     " ranks...");
          compiled[key] = compileVariants(spec, variants);
        }
        const VariantSet &set = compiled[key];
        t.enumerated = set.enumerated;
        t.variants = set.compiled;
        t.notes = set.notes;
        result.tables.push_back(std::move(t));
      }
    }
  for (const auto &[key, set] : compiled) {
    if (settings.quiet) continue;
    char line[256];
    std::snprintf(line, sizeof line,
                  "plan-tune: %s: %d variants enumerated: %zu compiled, %d not applicable, %d "
                  "duplicate plans, %d failed to compile",
                  std::string(toString(CollectiveKind(key.first))).c_str(), set.enumerated,
                  set.compiled.size(), set.count("not-applicable"), set.count("duplicate"),
                  set.count("compile-failed"));
    bar.note(line);
    for (const VariantNote &n : set.notes)
      if (n.status == "compile-failed") bar.note("plan-tune:   compile failed: " + n.label + ": " + n.reason);
  }
  bool anyVariant = false;
  for (const TableResult &t : result.tables) anyVariant = anyVariant || !t.variants.empty();
  if (!anyVariant) throw TuneError("no algorithm variant compiled for the requested collectives");

  // 2. Correctness first: a wrong plan is never timed, never chosen, and said loudly. (Before
  // pruning, so that the best prediction pruning compares with is one that can run here.)
  for (TableResult &t : result.tables) {
    t.measurements.sizes = bench::sizePoints(t.benchCase, requested);
    t.pruned.assign(t.variants.size(), false);
    t.checkNotes.assign(t.variants.size(), "");
    t.measurements.eligible.assign(t.variants.size(), true);
  }
  installInterruptHandler();
  for (TableResult &t : result.tables)
    for (size_t v = 0; v < t.variants.size() && !interrupted(); ++v) {
      const std::string &label = t.variants[v].variant.label;
      try {
        const CheckOutcome c = measurer.check(t.variants[v].plan, t.benchCase);
        t.checkNotes[v] = c.note;
        if (!c.unsupported.empty()) {
          t.measurements.eligible[v] = false;
          t.notes.push_back({label, "unsupported", c.unsupported});
          say(settings, bar, "plan-tune: " + t.name() + " " + label + ": not runnable on this topology: " + c.unsupported);
          continue;
        }
        if (c.ran && c.wrong > 0) {
          t.measurements.eligible[v] = false;
          t.notes.push_back({label, "wrong", std::to_string(c.wrong) + " wrong elements (" + c.note + ")"});
          ++result.wrongVariants;
          bar.note("plan-tune: WRONG RESULT: " + t.name() + " " + label + ": " +
                   std::to_string(c.wrong) + " wrong elements; it will not be chosen");
        }
      } catch (const std::exception &e) {
        t.measurements.eligible[v] = false;
        t.notes.push_back({label, "run-failed", e.what()});
        bar.note("plan-tune: " + t.name() + " " + label + " failed to run: " + e.what());
      }
    }

  // 3. α-β and pruning among the variants that passed.
  result.alphaBeta = chooseAlphaBeta(settings, result.topology, measurer, result.tables);
  say(settings, bar, "plan-tune: cost model " + result.alphaBeta.source);
  for (TableResult &t : result.tables) {
    std::vector<uint64_t> bytes;
    for (const bench::SizePoint &p : t.measurements.sizes) bytes.push_back(p.bytes);
    const PruneResult pr = pruneByPrediction(t.variants, t.measurements.eligible, bytes,
                                             result.alphaBeta, settings.effectivePruneFactor());
    t.measurements.byVariant.assign(t.variants.size(),
                                    std::vector<Measurement>(t.measurements.sizes.size()));
    t.measurements.predictedUs.assign(t.variants.size(), {});
    for (size_t v = 0; v < t.variants.size(); ++v) {
      for (uint64_t b : bytes)
        t.measurements.predictedUs[v].push_back(
            t.variants[v].predictedUs(result.alphaBeta.alphaUs, result.alphaBeta.bytesPerUs, double(b)));
      if (t.measurements.eligible[v] && !pr.keep[v]) {
        t.pruned[v] = true;
        t.measurements.eligible[v] = false;
        t.notes.push_back({t.variants[v].variant.label, "pruned", pr.reasons[v]});
        say(settings, bar, "plan-tune:   pruned " + t.variants[v].variant.label + ": " + pr.reasons[v]);
      }
    }
    t.choices.assign(t.measurements.sizes.size(), SizeChoice{});
    if (!settings.quiet) {
      const int pruned = int(std::count(t.pruned.begin(), t.pruned.end(), true));
      const int left = int(std::count(t.measurements.eligible.begin(), t.measurements.eligible.end(), true));
      const bool noPruning = settings.effectivePruneFactor() >= 1e300;
      bar.note("plan-tune: " + t.name() + ": " + std::to_string(pruned) + " of " +
               std::to_string(left + pruned) + " runnable variants pruned (" +
               (noPruning ? std::string("no pruning on sim: every variant is simulated")
                          : "predicted > " + std::to_string(int(settings.effectivePruneFactor())) +
                                "x the best prediction at every size") +
               "), " + std::to_string(left) + " to measure at " +
               std::to_string(t.measurements.sizes.size()) + " sizes");
    }
  }

  // 4. Measurement: table by table, size by size. At each size the surviving variants take
  // turns, one batch each per round, so a burst of load on a shared machine is spread over all
  // of them instead of landing on whichever variant happened to be running.
  struct Group {
    size_t table, size;
    std::vector<size_t> variants;
    std::vector<double> weights;  ///< estimated µs of each variant's measurement
  };
  std::vector<Group> groups;
  std::vector<std::vector<std::vector<bool>>> planned(result.tables.size());
  double totalWeight = 0;
  size_t totalItems = 0;
  for (size_t ti = 0; ti < result.tables.size(); ++ti) {
    TableResult &t = result.tables[ti];
    planned[ti].assign(t.variants.size(), std::vector<bool>(t.measurements.sizes.size(), false));
    for (size_t s = 0; s < t.measurements.sizes.size(); ++s) {
      Group g{ti, s, {}, {}};
      for (size_t v = 0; v < t.variants.size(); ++v) {
        if (!t.measurements.eligible[v]) continue;
        const Backend &backend = measurer.backend();
        const double reps = backend.simulated()
                                ? 0
                                : measurer.warmup() + 1.5 * measurer.batchReps(t.measurements.sizes[s].bytes);
        const double w = t.measurements.predictedUs[v][s] * (reps + 1) + backend.launchOverheadUs();
        g.variants.push_back(v);
        g.weights.push_back(w);
        planned[ti][v][s] = true;
        totalWeight += w;
      }
      totalItems += g.variants.size();
      if (!g.variants.empty()) groups.push_back(std::move(g));
    }
  }
  bar.start(totalWeight, totalItems);
  size_t finished = 0;
  // Ctrl-C stops after the current measurement; the budget is checked between sizes, so the
  // size being measured is finished (one batch per variant once the budget is near) and even a
  // budget shorter than one size leaves a bundle with that size.
  auto interruptRequested = [&] {
    if (interrupted()) result.interrupted = true;
    return result.interrupted;
  };
  auto stopRequested = [&] {
    if (!interruptRequested() && settings.budgetSeconds > 0 &&
        bar.elapsed() >= settings.budgetSeconds)
      result.budgetExhausted = true;
    return result.partial();
  };
  for (const Group &g : groups) {
    if (stopRequested()) break;
    TableResult &t = result.tables[g.table];
    const bench::SizePoint &size = t.measurements.sizes[g.size];
    const bool oneBatch = settings.budgetSeconds > 0 &&
                          bar.elapsed() + bar.remaining() > settings.budgetSeconds;
    std::vector<BatchState> states(g.variants.size());
    std::vector<bool> active(g.variants.size(), true);
    for (bool any = true; any && !interruptRequested();) {
      any = false;
      for (size_t k = 0; k < g.variants.size() && !interruptRequested(); ++k) {
        const size_t v = g.variants[k];
        if (!active[k] || !t.measurements.eligible[v]) continue;
        const std::string &label = t.variants[v].variant.label;
        const bool first = states[k].result.batches == 0;
        try {
          measurer.runBatch(t.variants[v].plan, t.benchCase, size, oneBatch, states[k]);
          t.measurements.byVariant[v][g.size] = states[k].result;
          if (states[k].result.wrong > 0) {
            t.measurements.eligible[v] = false;
            t.notes.push_back({label, "wrong", std::to_string(states[k].result.wrong) +
                                                   " wrong elements at " + bench::formatBytes(size.bytes)});
            ++result.wrongVariants;
            bar.note("plan-tune: WRONG RESULT: " + t.name() + " " + label + " at " +
                     bench::formatBytes(size.bytes) + ": " + std::to_string(states[k].result.wrong) +
                     " wrong elements; it will not be chosen");
          }
        } catch (const std::exception &e) {
          t.measurements.eligible[v] = false;
          t.notes.push_back({label, "run-failed", std::string("at ") + bench::formatBytes(size.bytes) + ": " + e.what()});
          bar.note("plan-tune: " + t.name() + " " + label + " failed at " +
                   bench::formatBytes(size.bytes) + ": " + e.what());
          states[k].stable = true;
        }
        active[k] = !states[k].stable;
        any = any || active[k];
        if (first) {
          ++finished;
          bar.advance(g.weights[k], t.name() + " " + bench::formatBytes(size.bytes) + " " + label);
        }
      }
    }
  }
  bar.finish();
  if (result.interrupted)
    say(settings, bar, "plan-tune: interrupted after " + std::to_string(finished) + " of " +
                           std::to_string(totalItems) + " measurements; writing what was measured");
  if (result.budgetExhausted)
    say(settings, bar, "plan-tune: the budget of " + formatDuration(settings.budgetSeconds) +
                           " is spent after " + std::to_string(finished) + " of " +
                           std::to_string(totalItems) +
                           " measurements; the bundle covers the sizes measured so far");

  // 5. Choice and bundle.
  Bundle bundle;
  bundle.topologyFingerprint = result.fingerprint;
  bundle.topology = topologyToJson(result.topology);
  bundle.backend = settings.backend;
  bundle.ranks = result.ranks;
  bundle.toolVersion = toolVersion();
  bundle.tunerSettings = settings.toJson();
  bundle.tunerSettings["alpha_us"] = result.alphaBeta.alphaUs;
  bundle.tunerSettings["bandwidth_gbps"] = result.alphaBeta.bytesPerUs / 1e3;
  bundle.tunerSettings["cost_model"] = result.alphaBeta.source;
  bundle.tunerSettings["partial"] = result.partial();
  const bool simulated = measurer.backend().simulated();
  bundle.tunerSettings["warmup"] = simulated ? 0 : measurer.warmup();
  bundle.tunerSettings["max_batches"] = simulated ? 1 : measurer.maxBatches();
  for (size_t ti = 0; ti < result.tables.size(); ++ti) {
    TableResult &t = result.tables[ti];
    t.choices = chooseWinners(t.measurements);
    dropUnfinishedSizes(t, planned[ti]);
    t.complete = !result.partial();
    t.buckets = mergeBuckets(t.measurements, t.choices);
    if (t.buckets.empty()) continue;
    BucketTable table;
    table.collective = t.benchCase.kind;
    table.dtype = t.benchCase.dtype;
    if (needsReduceOp(t.benchCase.kind)) table.op = t.benchCase.op;
    for (const BucketChoice &b : t.buckets) {
      Bucket bucket;
      bucket.minBytes = b.minBytes;
      bucket.maxBytes = b.maxBytes;
      bucket.plan = t.variants[size_t(b.winner)].plan;
      auto candidate = [&](int v) {
        BucketCandidate c;
        c.algorithm = t.variants[size_t(v)].variant.label;
        c.measuredUs = t.measurements.byVariant[size_t(v)][b.sizeIndex].medianUs;
        c.predictedUs = t.measurements.predictedUs[size_t(v)][b.sizeIndex];
        return c;
      };
      bucket.winner = candidate(b.winner);
      if (b.runnerUp >= 0) bucket.runnerUp = candidate(b.runnerUp);
      table.buckets.push_back(std::move(bucket));
    }
    bundle.tables.push_back(std::move(table));
  }
  if (!bundle.tables.empty()) {
    try {
      validateBundle(bundle, "plan-tune bundle");
    } catch (const PlanError &e) {
      throw TuneError(std::string("internal error: the tuned bundle does not validate: ") + e.what());
    }
    result.bundle = std::move(bundle);
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  return result;
}

void writeBundle(const TuneResult &result, const std::string &path) {
  if (!result.bundle) throw TuneError("-o " + path + ": nothing was measured, no bundle to write");
  try {
    saveBundleFile(*result.bundle, path);
  } catch (const std::exception &e) {
    throw TuneError("-o " + path + ": " + e.what());
  }
}

}  // namespace collplan::tune
