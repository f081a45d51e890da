// plan-compile: compiles a collective (or a researcher's .mlir schedule) to a verified plan.
#include "compiler/export/CompileParams.h"
#include "runtime/core/Text.h"
#include "compiler/export/PlanCompiler.h"
#include "compiler/template/TemplateAlgorithms.h"
#include "runtime/backends/Backend.h"
#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/topology/Resolver.h"
#include "runtime/topology/Topology.h"
#include "tools/CommandLine.h"

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
  std::string input, collective, opName, topologySpec, emit = "plan", outPath, symbol;
  std::string dtypeName = "f32", backend = "cpu-threads";
  int ranks = 0, root = 0;
  CompileOptions options;
  bool cost = false, list = false;
  std::vector<std::string> schedules;  // registered above, before the flags were made
  app.add_option("input", input,
                 "A .mlir file with one coll.collective or coll.schedule, or schedule templates "
                 "(coll.template: compiled for -n ranks, the one named by -a if several)");
  app.add_option("--schedule", schedules,
                 "A .mlir file of schedule templates, repeatable: each becomes an algorithm "
                 "named by its symbol (for -a and --list)")
      ->allow_extra_args(false);
  app.add_option("-c,--collective", collective, "Collective kind: " + collectiveKindNames());
  app.add_option("-n,--ranks", ranks, "Number of ranks");
  app.add_option("-a,--algorithm", options.algorithm, "Algorithm (see --list)");
  app.add_option("--op", opName, "Reduction op: " + reduceOpNames());
  app.add_option("--root", root, "Root rank of rooted collectives");
  // One flag per key of the registry's parameters, parsed by the parser --param of
  // plan-view/plan-bench uses.
  const std::vector<CompileParam> params = compileParams();
  std::vector<std::pair<std::string, std::string>> paramFlags;  // key, value as typed
  for (const CompileParam &p : params) {
    const std::string key = p.key();
    if (p.isSwitch())  // --bidirectional alone means true; --bidirectional false as typed
      app.add_option_function<std::string>(
             "--" + key,
             [&paramFlags, key](const std::string &v) {
               paramFlags.emplace_back(key, v.empty() ? "true" : v);
             },
             p.help())
          ->expected(0, 1);
    else
      app.add_option_function<std::string>(
          "--" + key,
          [&paramFlags, key](const std::string &v) { paramFlags.emplace_back(key, v); },
          p.help());
  }
  app.add_option("-t,--topology", topologySpec, "Topology: file, preset or generator spec");
  app.add_option("--symbol", symbol, "Which collective/schedule of the input file");
  app.add_option("--emit", emit, "mlir (level 2), program (level 3), plan (JSON), bundle")
      ->check(CLI::IsMember({"mlir", "schedule", "program", "plan", "bundle"}));
  app.add_option("--dtype", dtypeName, "Bundle dtype: " + dtypeNames());
  app.add_option("--backend", backend, "Bundle backend: " + backendNames());
  app.add_option("-o,--output", outPath,
                 "Output file (default: stdout); plans and bundles are compact JSON, or CBOR for a "
                 ".cbor path");
  std::string encodingName;
  app.add_option("--encoding", encodingName,
                 "json or cbor: the encoding of a plan or bundle (default: by the output's "
                 "extension; JSON on stdout)")
      ->check(CLI::IsMember({"json", "cbor"}));
  app.add_flag("--cost", cost, "Print the cost summary");
  app.add_flag("--explain", options.explain, "Print what each stage did");
  app.add_flag("--list", list,
               "List the algorithms: collectives, parameters (default, range, help), origin");
  if (const std::optional<int> exit = tools::parseCommandLine(app, argc, argv)) return *exit;

  auto fail = [](const std::string &message) {
    std::cerr << "plan-compile: error: " << message << "\n";
    return 1;
  };
  if (list) {
    std::cout << algorithmListing();
    return 0;
  }
  // A parameter the named algorithm's lowering ignores is an error, as in plan-view/plan-bench;
  // without -a, the file's collective names the algorithm and the compiler checks them then.
  const AlgorithmInfo *named = options.algorithm.empty() ? nullptr : findAlgorithm(options.algorithm);
  for (const auto &[key, value] : paramFlags)
    if (auto why = applyCompileParam(key + "=" + value, named, options))
      return fail("--" + key + " " + value + ": " + *why);
  if (!findBackend(backend))
    return fail("unknown backend '" + backend + "' (expected one of: " + backendNames() + ")");
  options.keepIR = emit != "plan" && emit != "bundle";
  std::optional<DType> dtype = parseDType(dtypeName);
  if (!dtype) return fail("unknown dtype '" + dtypeName + "' (expected one of: " + dtypeNames() + ")");

  Topology topology;
  if (!topologySpec.empty()) {
    try {
      topology = resolveTopology(topologySpec, ranks);
    } catch (const std::exception &e) {
      return fail(e.what());
    }
    options.topology = &topology;
    if (ranks == 0) ranks = topology.numRanks();
  }

  std::string error;
  mlir::FailureOr<CompiledPlan> compiled = mlir::failure();
  if (!inputTemplates.empty()) {
    // A file of templates: compile one of them like a registered algorithm.
    if (options.algorithm.empty() && inputTemplates.size() > 1)
      return fail(input + " holds several templates: name one with -a (" +
                  joined(inputTemplates) + ")");
    if (options.algorithm.empty()) options.algorithm = inputTemplates.front();
    if (collective.empty())
      collective = findAlgorithm(options.algorithm) ? findAlgorithm(options.algorithm)->kindNames()
                                                    : "";
    input.clear();
  }
  if (!input.empty()) {
    if (!collective.empty()) return fail("give either an input file or --collective, not both");
    compiled = compileFile(input, symbol, options, error);
  } else {
    if (collective.empty()) return fail("nothing to compile: give an input .mlir file or --collective");
    auto kind = parseCollectiveKind(collective);
    if (!kind)
      return fail("unknown collective '" + collective + "' (expected one of: " +
                  collectiveKindNames() + ")");
    if (ranks < 1) return fail("--ranks must be at least 1 (got " + std::to_string(ranks) + ")");
    if (options.algorithm.empty()) return fail("--algorithm is required (see --list)");
    CollectiveSpec spec;
    spec.kind = *kind;
    spec.ranks = ranks;
    spec.root = root;
    if (!opName.empty()) {
      auto op = parseReduceOp(opName);
      if (!op) return fail("unknown op '" + opName + "' (expected one of: " + reduceOpNames() + ")");
      spec.op = op;
    } else if (needsReduceOp(*kind)) {
      spec.op = ReduceOp::Sum;
    }
    compiled = compileCollective(spec, options, error);
  }
  if (failed(compiled)) return fail(error);

  Output out(outPath);
  std::ostream &info = out.toStdout() ? std::cerr : std::cout;
  for (const std::string &line : compiled->explanation) info << line << "\n";
  if (cost) info << formatCost(compiled->cost, /*perRank=*/false);
  if (emit == "mlir" || emit == "schedule") return out.write(compiled->scheduleIR) ? 0 : 1;
  if (emit == "program") return out.write(compiled->programIR) ? 0 : 1;
  const DocumentEncoding encoding = !encodingName.empty()
                                        ? (encodingName == "cbor" ? DocumentEncoding::Cbor
                                                                  : DocumentEncoding::Json)
                                        : out.toStdout() ? DocumentEncoding::Json
                                                         : encodingForPath(outPath);
  const nlohmann::json document =
      emit == "plan" ? planToJson(compiled->plan)
                     : bundleToJson(singlePlanBundle(*compiled, *dtype,
                                                     topologySpec.empty() ? nullptr : &topology,
                                                     backend));
  if (!out.toStdout()) {
    try {
      if (emit == "plan")
        savePlanFile(compiled->plan, outPath, encoding);
      else
        saveBundleFile(bundleFromJson(document, "plan-compile"), outPath, encoding);
    } catch (const PlanError &e) {
      return fail(std::string("cannot write ") + outPath + ": " + e.reason());
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
