// plan-view: draws a plan (file, bundle bucket or built-in) as SVG, or as an HTML page that steps
// through the schedule; --sim draws simulated time instead of steps.
#include "runtime/core/Files.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/sim/Simulator.h"
#include "runtime/topology/Resolver.h"
#include "tools/named-algorithm/NamedAlgorithm.h"
#include "tools/plan-view/PlanSvg.h"
#include "tuner/measure/ByteSize.h"
#include "tuner/measure/PlanSource.h"
#include "tools/CommandLine.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

using namespace collplan;

namespace {

struct Options {
  std::string planFile, bundleFile, output, sim, topology, bytes = "1M";
  tools::AlgorithmRequest algorithm;  ///< --algorithm and its --param list
  std::string collective, dtype = "f32", op;
  std::optional<int> root, ranks;
  bool html = false;
  int maxRanks = 32, maxSteps = 48;
};

[[noreturn]] void usage(const std::string &message) { throw std::invalid_argument(message); }


/// The plan to draw, from exactly one of --plan, --bundle and --algorithm (default or a name).
Plan choosePlan(const Options &o, uint64_t bytes) {
  tools::checkAlgorithmRequest(o.algorithm);
  const int sources =
      !o.planFile.empty() + !o.bundleFile.empty() + !o.algorithm.algorithm.empty();
  if (sources != 1)
    usage("give exactly one of --plan FILE, --bundle FILE (with --collective) or --algorithm "
          "default|NAME (with --collective and --ranks)");
  if (!o.topology.empty() && !o.algorithm.named())
    usage("--topology is only used by --algorithm NAME (to draw simulated time use --sim)");
  if (!o.planFile.empty()) return measure::loadPlanFileForTool(o.planFile);
  measure::BenchCase c;
  c.kind = parseNamed("--collective", o.collective.empty() ? "allreduce" : o.collective,
                     &parseCollectiveKind, collectiveKindNames());
  c.dtype = parseNamed("--dtype", o.dtype, &parseDType, dtypeNames());
  c.op = parseNamed("--op", o.op.empty() ? "sum" : o.op, &parseReduceOp, reduceOpNames());
  c.root = o.root.value_or(0);
  if (!o.bundleFile.empty()) {
    const Bundle bundle = measure::loadBundleFileForTool(o.bundleFile);
    c.ranks = o.ranks.value_or(bundle.ranks);
    return measure::PlanSource::fromBundleFile(o.bundleFile, c).planFor(bytes);
  }
  std::optional<Topology> topology;
  if (!o.topology.empty()) topology = resolveTopology(o.topology, o.ranks.value_or(0));
  if (!o.ranks && !topology) usage("--algorithm " + o.algorithm.algorithm + " needs --ranks N");
  c.ranks = o.ranks ? *o.ranks : topology->numRanks();
  if (c.ranks < 1 || c.ranks > 4096) usage("--ranks must be between 1 and 4096");
  if (topology && topology->numRanks() != c.ranks)
    usage("--topology " + o.topology + " has " + std::to_string(topology->numRanks()) +
          " ranks but --ranks is " + std::to_string(c.ranks));
  if (o.algorithm.named())
    return tools::compileAlgorithmRequest(o.algorithm, c, topology ? &*topology : nullptr);
  return measure::PlanSource::builtIn(c).planFor(bytes);
}

int run(const Options &o) {
  if (o.maxRanks < 1 || o.maxSteps < 1) usage("--max-ranks and --max-steps must be at least 1");
  const std::optional<uint64_t> bytes = measure::parseByteSize(o.bytes);
  if (!bytes || *bytes == 0)
    usage("--bytes: \"" + o.bytes + "\" is not a positive byte size (digits with an optional K, "
          "M or G suffix, e.g. 1M)");
  const Plan plan = choosePlan(o, *bytes);
  view::DrawingLimits limits{o.maxRanks, o.maxSteps};
  view::Drawing drawing;
  if (!o.sim.empty()) {
    const Topology topo = resolveTopology(o.sim, plan.ranks);
    if (topo.numRanks() != plan.ranks)
      usage("--sim " + o.sim + " has " + std::to_string(topo.numRanks()) +
            " ranks but the plan has " + std::to_string(plan.ranks));
    const SimResult result = simulate(plan, topo, *bytes);
    drawing = view::layoutByTime(plan, result, o.sim + ", " + measure::formatBytes(*bytes), limits);
  } else {
    drawing = view::layoutBySteps(plan, limits);
  }
  const bool html = o.html || (o.output.size() > 5 && o.output.substr(o.output.size() - 5) == ".html");
  const std::string text = html ? view::renderHtml(drawing) : view::renderSvg(drawing);
  if (o.output.empty() || o.output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  writeWholeFile(o.output, text);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"plan-view: draw a collplan plan as SVG (ranks x steps, transfers as arrows) or "
               "as an HTML page that steps through the schedule"};
  Options o;
  app.add_option("plan", o.planFile, "Plan file (same as --plan)");
  app.add_option("--plan", o.planFile, "Plan file to draw");
  app.add_option("--bundle", o.bundleFile, "Bundle: draw the plan of the bucket holding --bytes");
  tools::addAlgorithmOptions(app, o.algorithm, "the runtime's built-in plan");
  app.add_option("--topology", o.topology,
                 "Compile --algorithm NAME for this topology: " + acceptedTopologySpecs());
  app.add_option("--collective,-c", o.collective, "Collective for --bundle / --algorithm (default allreduce)");
  app.add_option("--dtype,-d", o.dtype, "Element type for --bundle: " + dtypeNames())->capture_default_str();
  app.add_option("--op", o.op, "Reduction op for --bundle / --algorithm (default sum)");
  app.add_option("--root,-r", o.root, "Root for --algorithm (default 0)");
  app.add_option("--ranks,-n", o.ranks, "Ranks for --algorithm (default: the topology's)");
  app.add_option("--bytes", o.bytes, "Message size for --sim, --bundle and --algorithm default (the built-in plan for that size) (K, M, G suffixes)")->capture_default_str();
  app.add_option("--sim", o.sim, "Draw simulated time on this topology: " + acceptedTopologySpecs());
  app.add_option("-o,--output", o.output, "Output file (default stdout; *.html implies --html)");
  app.add_flag("--html", o.html, "Write a self-contained HTML page that steps through the schedule");
  app.add_option("--max-ranks", o.maxRanks, "Draw at most this many ranks")->capture_default_str();
  app.add_option("--max-steps", o.maxSteps, "Draw at most this many steps (or start times)")->capture_default_str();
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;
  try {
    tools::registerSchedules(o.algorithm);
    return run(o);
  } catch (const std::exception &e) {  // PlanError, TopologyError, SimError, usage errors
    std::fprintf(stderr, "plan-view: %s\n", e.what());
  }
  return 1;
}
