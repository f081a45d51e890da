// plan-compile: compiles a collective (or a researcher's .mlir schedule) to a verified plan.
#include "compiler/export/CompileParams.h"
#include "runtime/core/Text.h"
#include "compiler/export/PlanCompiler.h"
#include "compiler/template/TemplateAlgorithms.h"
#include "runtime/backends/Backend.h"
#include "runtime/interop/BundleExport.h"
#include "runtime/interop/MscclXml.h"
#include "runtime/interop/MscclppJson.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/sim/LowerBound.h"
#include "runtime/topology/Resolver.h"
#include "runtime/topology/Topology.h"
#include "tools/CommandLine.h"
#include "tuner/measure/ByteSize.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <algorithm>
#include <fstream>
#include <iostream>

using namespace collplan;

namespace {

/// Where results go: a file given with -o, or stdout.
class Output {
public:
  explicit Output(const std::string &path) : path_(path) {}
  bool write(const std::string &text) {
    if (path_.empty() || path_ == "-") {
      std::cout << text;
      return true;
    }
    std::ofstream file(path_);
    if (!file || !(file << text)) {
      std::cerr << "plan-compile: error: cannot write " << path_ << "\n";
      return false;
    }
    return true;
  }
  bool toStdout() const { return path_.empty() || path_ == "-"; }

private:
  std::string path_;
};

/// A bundle holding one table whose single bucket (all sizes) is `plan`, for `topology` (null:
/// any machine).
Bundle singlePlanBundle(const CompiledPlan &compiled, DType dtype, const Topology *topology,
                        const std::string &backend) {
  Bundle bundle;
  bundle.topologyFingerprint = topology ? topology->fingerprint() : "any";
  if (topology) bundle.topology = topologyToJson(*topology);
  bundle.backend = backend;
  bundle.ranks = compiled.plan.ranks;
  bundle.toolVersion = "plan-compile 0.1";
  BucketTable table;
  table.collective = compiled.plan.collective;
  table.dtype = dtype;
  table.op = compiled.plan.op;
  Bucket bucket;
  bucket.minBytes = 0;
  bucket.maxBytes = UINT64_MAX;
  bucket.plan = compiled.plan;
  bucket.winner.algorithm = compiled.plan.algorithm;
  table.buckets.push_back(bucket);
  bundle.tables.push_back(table);
  return bundle;
}

/// The files whose templates must be registered before the flags are made (so that their
/// parameters get flags): every --schedule FILE, and the input file when it is a .mlir file
/// that holds templates. Returns the templates of the input file; throws std::invalid_argument
/// for a --schedule file that cannot be registered.
std::vector<std::string> registerTemplatesOf(int argc, char **argv) {
  std::vector<std::string> inputTemplates;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--schedule" && i + 1 < argc) {
      registerTemplateFile(argv[++i]);
    } else if (arg.rfind("--schedule=", 0) == 0) {
      registerTemplateFile(arg.substr(11));
    } else if (arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".mlir") == 0 &&
               arg[0] != '-' && inputTemplates.empty()) {
      try {
        inputTemplates = registerTemplateFile(arg);
      } catch (const std::invalid_argument &) {
        // a file of collectives or schedules: compileFile reads it (and says what is wrong)
      }
    }
  }
  return inputTemplates;
}

/// What the command line asks for.
struct Request {
  std::string input, collective, opName, topologySpec, emit = "plan", outPath, symbol;
  std::string dtypeName = "f32", backend = "cpu-threads", encodingName;
  std::string fromBundle;  ///< --from-bundle: a bundle to convert (--emit msccl-xml|mscclpp-json)
  int ranks = 0, root = 0;
  CompileOptions options;
  bool cost = false, list = false, composed = false;
  bool bound = false;                   ///< --bound: print the topology's lower bound instead
  std::vector<std::string> boundSizes;  ///< --bytes, as typed
  std::vector<std::string> schedules;  // registered before the flags were made
  std::vector<std::pair<std::string, std::string>> paramFlags;  // key, value as typed
};

/// A bad request: reported as "plan-compile: error: <what>", exit 1.
struct RequestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One flag per key of the registry's parameters, parsed by the parser --param of
/// plan-view/plan-bench uses.
void addParamFlags(CLI::App &app, Request &r) {
  for (const CompileParam &p : compileParams()) {
    const std::string key = p.key();
    const bool isSwitch = p.isSwitch();
    auto &flags = r.paramFlags;
    CLI::Option *option = app.add_option_function<std::string>(
        "--" + key,
        [&flags, key, isSwitch](const std::string &v) {
          flags.emplace_back(key, isSwitch && v.empty() ? "true" : v);
        },
        p.help());
    if (isSwitch) option->expected(0, 1);  // --bidirectional alone means true; or true/false
  }
}

void addFlags(CLI::App &app, Request &r) {
  app.add_option("input", r.input,
                 "A .mlir file with one coll.collective or coll.schedule, or schedule templates "
                 "(coll.template: compiled for -n ranks, the one named by -a if several)");
  app.add_option("--schedule", r.schedules,
                 "A .mlir file of schedule templates, repeatable: each becomes an algorithm "
                 "named by its symbol (for -a and --list)")
      ->allow_extra_args(false);
  app.add_option("-c,--collective", r.collective, "Collective kind: " + collectiveKindNames());
  app.add_option("-n,--ranks", r.ranks, "Number of ranks");
  app.add_option("-a,--algorithm", r.options.algorithm, "Algorithm (see --list)");
  app.add_option("--op", r.opName, "Reduction op: " + reduceOpNames());
  app.add_option("--root", r.root, "Root rank of rooted collectives");
  addParamFlags(app, r);
  app.add_option("-t,--topology", r.topologySpec, "Topology: file, preset or generator spec");
  app.add_option("--symbol", r.symbol, "Which collective/schedule of the input file");
  app.add_option("--emit", r.emit,
                 "mlir (level 2), program (level 3), plan (JSON), bundle, msccl-xml (an MSCCL "
                 "executor algorithm), mscclpp-json (an MSCCL++ execution plan)")
      ->check(CLI::IsMember(
          {"mlir", "schedule", "program", "plan", "bundle", "msccl-xml", "mscclpp-json"}));
  app.add_option("--from-bundle", r.fromBundle,
                 "With --emit msccl-xml or mscclpp-json and -o DIR: convert this bundle (e.g. "
                 "plan-tune's) instead of compiling, one file per size bucket, its range in the "
                 "format's size fields");
  app.add_option("--dtype", r.dtypeName, "Bundle dtype: " + dtypeNames());
  app.add_option("--backend", r.backend, "Bundle backend: " + backendNames());
  app.add_option("-o,--output", r.outPath,
                 "Output file (default: stdout); plans and bundles are compact JSON, or CBOR for a "
                 ".cbor path");
  app.add_option("--encoding", r.encodingName,
                 "json or cbor: the encoding of a plan or bundle (default: by the output's "
                 "extension; JSON on stdout)")
      ->check(CLI::IsMember({"json", "cbor"}));
  app.add_flag("--cost", r.cost, "Print the cost summary");
  app.add_flag("--explain", r.options.explain, "Print what each stage did");
  app.add_flag("--fixed-reduction-order", r.options.rankOrderReductions,
               "Require every reduction to be a left fold in rank order, (((x0+x1)+x2)+...), "
               "so results are bitwise identical whatever plan or message size; mark the plan "
               "so (reduction_order \"rank\"). Algorithms that fold otherwise fail");
  app.add_flag("--composed", r.composed,
               "With -c allreduce|allgather|reduce_scatter -a hierarchical --ranks-per-node L: "
               "store the plan as its stages (intra-node ones on L ranks, inter-node ones on "
               "N/L), each compiled and proven at its own size; each rank builds its program at "
               "load (hierarchical allgather and reduce-scatter are always so stored)");
  app.add_flag("--list", r.list,
               "List the algorithms: collectives, parameters (default, range, help), origin");
  app.add_flag("--bound", r.bound,
               "Print the lower bound of -c on every rank of -t instead of compiling: the "
               "throughput bound of the links' cuts (max-flow), memory and reduction, and the "
               "latency bound; no plan simulated on the topology runs faster");
  app.add_option("-b,--bytes", r.boundSizes,
                 "With --bound: message sizes for the table, comma separated, K/M/G suffixes "
                 "(default 8,4K,64K,1M,16M,256M,1G)")
      ->delimiter(',');
}

/// The collective -c, -n, --root and --op ask for.
CollectiveSpec requestedSpec(const Request &r) {
  if (r.collective.empty())
    throw RequestError("nothing to compile: give an input .mlir file or --collective");
  const std::optional<CollectiveKind> kind = parseCollectiveKind(r.collective);
  if (!kind)
    throw RequestError("unknown collective '" + r.collective + "' (expected one of: " +
                       collectiveKindNames() + ")");
  if (r.ranks < 1)
    throw RequestError("--ranks must be at least 1 (got " + std::to_string(r.ranks) + ")");
  if (r.options.algorithm.empty()) throw RequestError("--algorithm is required (see --list)");
  CollectiveSpec spec;
  spec.kind = *kind;
  spec.ranks = r.ranks;
  spec.root = r.root;
  if (!r.opName.empty()) {
    spec.op = parseReduceOp(r.opName);
    if (!spec.op)
      throw RequestError("unknown op '" + r.opName + "' (expected one of: " + reduceOpNames() +
                         ")");
  } else if (needsReduceOp(*kind)) {
    spec.op = ReduceOp::Sum;
  }
  return spec;
}

/// Applies the parameter flags (a parameter the named algorithm ignores is an error, as in
/// plan-view/plan-bench; without -a, the file's collective names the algorithm and the
/// compiler checks them then) and the topology.
void resolveOptions(Request &r, Topology &topology) {
  const AlgorithmInfo *named =
      r.options.algorithm.empty() ? nullptr : findAlgorithm(r.options.algorithm);
  for (const auto &[key, value] : r.paramFlags)
    if (auto why = applyCompileParam(key + "=" + value, named, r.options))
      throw RequestError("--" + key + " " + value + ": " + *why);
  if (!findBackend(r.backend))
    throw RequestError("unknown backend '" + r.backend + "' (expected one of: " +
                       backendNames() + ")");
  r.options.keepIR = r.emit != "plan" && r.emit != "bundle" && r.emit != "msccl-xml" &&
                     r.emit != "mscclpp-json";
  if (r.topologySpec.empty()) return;
  topology = resolveTopology(r.topologySpec, r.ranks);
  r.options.topology = &topology;
  if (r.ranks == 0) r.ranks = topology.numRanks();
}

/// Compiles what `r` asks for: a template of the input file, the input file, or -c.
CompiledPlan compileRequest(Request &r, const std::vector<std::string> &inputTemplates) {
  if (!inputTemplates.empty()) {
    // A file of templates: compile one of them like a registered algorithm.
    if (r.options.algorithm.empty() && inputTemplates.size() > 1)
      throw RequestError(r.input + " holds several templates: name one with -a (" +
                         joined(inputTemplates) + ")");
    if (r.options.algorithm.empty()) r.options.algorithm = inputTemplates.front();
    const AlgorithmInfo *algorithm = findAlgorithm(r.options.algorithm);
    if (r.collective.empty()) r.collective = algorithm ? algorithm->kindNames() : "";
    r.input.clear();
  }
  std::string error;
  mlir::FailureOr<CompiledPlan> compiled = mlir::failure();
  if (!r.input.empty()) {
    if (!r.collective.empty())
      throw RequestError("give either an input file or --collective, not both");
    compiled = compileFile(r.input, r.symbol, r.options, error);
  } else if (r.composed) {
    if (r.emit != "plan" && r.emit != "bundle")
      throw RequestError("--composed writes a plan or a bundle (--emit plan|bundle), not " +
                         r.emit + ": each stage is its own program");
    compiled = compileComposedPlan(requestedSpec(r), r.options, error);
  } else {
    compiled = compileCollective(requestedSpec(r), r.options, error);
  }
  if (failed(compiled)) throw RequestError(error);
  const bool levelTwoOrThree = r.emit == "mlir" || r.emit == "schedule" || r.emit == "program";
  if (levelTwoOrThree && compiled->plan.composition)
    throw RequestError(compiled->plan.algorithm + " " +
                       std::string(toString(compiled->plan.collective)) + " on " +
                       std::to_string(compiled->plan.ranks) +
                       " ranks is built from stage plans of their own sizes, not as one "
                       "schedule: --emit plan or bundle");
  return std::move(*compiled);
}

/// Writes the plan (or bundle, or IR) where -o says, in the encoding asked for; the exit code.
int writeResult(const Request &r, const CompiledPlan &compiled, DType dtype,
                const Topology *topology) {
  Output out(r.outPath);
  std::ostream &info = out.toStdout() ? std::cerr : std::cout;
  for (const std::string &line : compiled.explanation) info << line << "\n";
  if (r.cost) info << formatCost(compiled.cost, /*perRank=*/false);
  if (r.emit == "mlir" || r.emit == "schedule") return out.write(compiled.scheduleIR) ? 0 : 1;
  if (r.emit == "program") return out.write(compiled.programIR) ? 0 : 1;
  if (r.emit == "msccl-xml") {
    try {
      return out.write(planToMscclXml(compiled.plan)) ? 0 : 1;
    } catch (const std::invalid_argument &e) {
      throw RequestError(e.what());
    }
  }
  if (r.emit == "mscclpp-json") {
    try {
      return out.write(planToMscclppJson(compiled.plan)) ? 0 : 1;
    } catch (const std::invalid_argument &e) {
      throw RequestError(e.what());
    }
  }
  const DocumentEncoding encoding = !r.encodingName.empty()
                                        ? (r.encodingName == "cbor" ? DocumentEncoding::Cbor
                                                                    : DocumentEncoding::Json)
                                        : out.toStdout() ? DocumentEncoding::Json
                                                         : encodingForPath(r.outPath);
  const nlohmann::json document =
      r.emit == "plan" ? planToJson(compiled.plan)
                       : bundleToJson(singlePlanBundle(compiled, dtype, topology, r.backend));
  if (!out.toStdout()) {
    try {
      if (r.emit == "plan")
        savePlanFile(compiled.plan, r.outPath, encoding);
      else
        saveBundleFile(bundleFromJson(document, "plan-compile"), r.outPath, encoding);
    } catch (const PlanError &e) {
      throw RequestError(std::string("cannot write ") + r.outPath + ": " + e.reason());
    }
    return 0;
  }
  if (encoding == DocumentEncoding::Cbor) {
    const std::vector<uint8_t> bytes = nlohmann::json::to_cbor(document);
    std::cout.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    return std::cout ? 0 : 1;
  }
  return out.write(document.dump() + "\n") ? 0 : 1;
}

/// --from-bundle: the bundle's buckets as one MSCCL or MSCCL++ file each in the directory -o;
/// a line per bucket (skipped ones with the reason); the exit code (1 when none was written).
int convertBundle(const Request &r) {
  const std::optional<InteropFormat> format = parseInteropFormat(r.emit);
  if (!format) throw RequestError("--from-bundle converts to --emit msccl-xml or mscclpp-json");
  if (r.outPath.empty() || r.outPath == "-")
    throw RequestError("--from-bundle writes one file per size bucket: give -o DIR");
  if (!r.input.empty() || !r.collective.empty())
    throw RequestError("give either --from-bundle or something to compile, not both");
  const BundleExport exported = exportBundle(loadBundleFile(r.fromBundle), *format, r.outPath);
  for (const ExportedBucket &bucket : exported.buckets)
    (bucket.file.empty() ? std::cerr : std::cout) << "plan-compile: " << describe(bucket) << "\n";
  if (exported.written() > 0) return 0;
  std::cerr << "plan-compile: error: " << r.fromBundle << ": no bucket could be exported\n";
  return 1;
}

/// --bound's collective and topology: -c and -t are required, -n (when given) must be the
/// topology's rank count, and nothing that names a plan may come with them.
std::pair<CollectiveKind, Topology> boundRequest(const Request &r) {
  if (!r.input.empty() || !r.options.algorithm.empty() || !r.fromBundle.empty())
    throw RequestError("--bound bounds every plan of -c on -t at once: give no input file, -a "
                       "or --from-bundle");
  if (r.collective.empty()) throw RequestError("--bound needs a collective (-c)");
  const std::optional<CollectiveKind> kind = parseCollectiveKind(r.collective);
  if (!kind)
    throw RequestError("unknown collective '" + r.collective + "' (expected one of: " +
                       collectiveKindNames() + ")");
  if (r.topologySpec.empty())
    throw RequestError("--bound needs a topology (-t): the bound comes from its links, memory "
                       "and latencies");
  if (r.ranks < 0)
    throw RequestError("--ranks must be at least 1 (got " + std::to_string(r.ranks) + ")");
  Topology topology = resolveTopology(r.topologySpec, r.ranks);
  if (r.ranks > 0 && r.ranks != topology.numRanks())
    throw RequestError("--ranks " + std::to_string(r.ranks) + " but topology '" +
                       r.topologySpec + "' has " + std::to_string(topology.numRanks()) +
                       " ranks (the bound is for all of a topology's ranks)");
  return {*kind, std::move(topology)};
}

/// --bound: the lower bound's terms and a row per --bytes size; the exit code.
int printBound(const Request &r) {
  const auto [kind, topology] = boundRequest(r);
  std::vector<uint64_t> sizes;
  for (const std::string &text : r.boundSizes)
    sizes.push_back(measure::parseByteSizeOption("--bytes", text));
  if (sizes.empty())
    sizes = {8, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20, uint64_t(1) << 30};
  BoundOptions options;
  options.root = r.root;
  const CollectiveBound bound = collectiveBound(topology, kind, options);
  return Output(r.outPath).write(formatBound(bound, topology, sizes)) ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> inputTemplates;
  try {
    inputTemplates = registerTemplatesOf(argc, argv);
  } catch (const std::invalid_argument &e) {
    std::cerr << "plan-compile: error: --schedule " << e.what() << "\n";
    return 1;
  }
  CLI::App app{"plan-compile: compile a collective or a coll .mlir schedule to a verified plan"};
  Request request;
  addFlags(app, request);
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;
  if (request.list) {
    std::cout << algorithmListing();
    return 0;
  }
  try {
    if (request.bound) return printBound(request);
    if (!request.fromBundle.empty()) return convertBundle(request);
    Topology topology;
    resolveOptions(request, topology);
    const std::optional<DType> dtype = parseDType(request.dtypeName);
    if (!dtype)
      throw RequestError("unknown dtype '" + request.dtypeName + "' (expected one of: " +
                         dtypeNames() + ")");
    const CompiledPlan compiled = compileRequest(request, inputTemplates);
    return writeResult(request, compiled, *dtype,
                       request.topologySpec.empty() ? nullptr : &topology);
  } catch (const std::exception &e) {  // RequestError, and the topology resolver's errors
    std::cerr << "plan-compile: error: " << e.what() << "\n";
    return 1;
  }
}
