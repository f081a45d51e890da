// compile (plan-compile), bench (plan-bench) and tune (plan-tune) as functions returning data.
#include "PyTools.h"

#include "runtime/python/src/PyConvert.h"

#include "runtime/topology/Resolver.h"
#include "tools/named-algorithm/NamedAlgorithm.h"
#include "tuner/measure/BenchRequest.h"
#ifdef COLLPLAN_PY_TUNER
#include "tuner/Tuner.h"
#endif

#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

namespace collplan::python {
namespace {

namespace py = pybind11;

/// {"channels": 2, "bidirectional": True} as the tools' --param assignments.
tools::AlgorithmRequest algorithmRequest(const std::string &algorithm, const py::dict &params) {
  tools::AlgorithmRequest request;
  request.algorithm = algorithm;
  for (const auto &[key, value] : params) {
    std::string text = py::isinstance<py::bool_>(value)
                           ? (value.cast<bool>() ? "true" : "false")
                           : std::string(py::str(value));
    request.params.push_back(std::string(py::str(key)) + "=" + text);
  }
  return request;
}

Plan compile(const std::string &collective, int ranks, const std::string &algorithm,
             const std::string &op, int root, const std::optional<std::string> &topology,
             const py::dict &params) {
  measure::BenchCase c;
  c.kind = parseNamed("collective", collective, &parseCollectiveKind, collectiveKindNames());
  c.op = parseNamed("op", op, &parseReduceOp, reduceOpNames());
  c.root = root;
  c.ranks = ranks;
  const tools::AlgorithmRequest request = algorithmRequest(algorithm, params);
  tools::checkAlgorithmRequest(request);
  std::optional<Topology> resolved;
  if (topology) resolved = resolveTopology(*topology, ranks);
  py::gil_scoped_release released;
  return tools::compileAlgorithmRequest(request, c, resolved ? &*resolved : nullptr);
}

py::object bench(const py::kwargs &kwargs) {
  measure::BenchRequest r;
  py::dict params;
  for (const auto &[keyObject, value] : kwargs) {
    const std::string key = py::str(keyObject);
    if (key == "plan") r.planFile = value.cast<std::string>();
    else if (key == "bundle") r.bundleFile = value.cast<std::string>();
    else if (key == "algorithm") r.algorithm = value.cast<std::string>();
    else if (key == "params") params = value.cast<py::dict>();
    else if (key == "collective") r.collective = value.cast<std::string>();
    else if (key == "dtype") r.dtype = value.cast<std::string>();
    else if (key == "op") r.op = value.cast<std::string>();
    else if (key == "root") r.root = value.cast<int>();
    else if (key == "ranks") r.ranks = value.cast<int>();
    else if (key == "backend") r.backend = value.cast<std::string>();
    else if (key == "topology") r.topology = value.cast<std::string>();
    else if (key == "allow_mismatch") r.allowMismatch = value.cast<bool>();
    else if (key == "min_bytes") r.minBytes = value.cast<uint64_t>();
    else if (key == "max_bytes") r.maxBytes = value.cast<uint64_t>();
    else if (key == "step_factor") r.stepFactor = value.cast<int64_t>();
    else if (key == "warmup") r.warmup = value.cast<int>();
    else if (key == "reps") r.reps = value.cast<int>();
    else if (key == "check") r.check = value.cast<bool>();
    else if (key == "verify") r.load.verify = value.cast<bool>();
    else
      throw py::type_error("bench() got an unexpected keyword argument '" + key +
                           "' (plan, bundle, algorithm, params, collective, dtype, op, root, "
                           "ranks, backend, topology, allow_mismatch, min_bytes, max_bytes, "
                           "step_factor, warmup, reps, check, verify)");
  }
  r.compiler = tools::benchCompiler(algorithmRequest(r.algorithm, params));
  measure::BenchOutcome outcome;
  {
    py::gil_scoped_release released;
    outcome = measure::runBenchRequest(r);
  }
  return toPython(measure::toJson(outcome.info, outcome.rows));
}

#ifdef COLLPLAN_PY_TUNER

py::dict tune(const std::vector<std::string> &collectives, int ranks, const std::string &backend,
              const std::string &topology, const std::vector<std::string> &dtypes,
              const std::vector<std::string> &ops, const std::vector<std::string> &algorithms,
              uint64_t minBytes, uint64_t maxBytes, double budget, bool quick,
              const std::string &output, const std::string &reportDir) {
  tune::TuneSettings s;
  s.collectives = parseNamedList("collectives", collectives, &parseCollectiveKind, collectiveKindNames());
  s.dtypes = parseNamedList("dtypes", dtypes, &parseDType, dtypeNames());
  s.ops = parseNamedList("ops", ops, &parseReduceOp, reduceOpNames());
  s.ranks = ranks;
  s.backend = backend;
  s.topologySpec = topology;
  s.algorithms = algorithms;
  s.minBytes = minBytes;
  s.maxBytes = maxBytes;
  s.budgetSeconds = budget;
  s.quick = quick;
  s.outputPath = output;
  s.reportDir = reportDir;
  s.quiet = true;
  tune::TuneResult result;
  {
    py::gil_scoped_release released;
    tune::validateSettings(s);
    result = tune::runTune(s);
    if (!output.empty() && result.bundle) tune::writeBundle(result, output);
  }
  py::list tables;
  for (const tune::TableResult &t : result.tables) {
    py::dict d;
    d["name"] = t.name();
    d["enumerated"] = t.enumerated;
    d["measured"] = t.measuredVariants();
    d["complete"] = t.complete;
    tables.append(d);
  }
  py::dict out;
  out["bundle"] = result.bundle ? py::cast(*result.bundle) : py::none();
  out["tables"] = tables;
  out["ranks"] = result.ranks;
  out["seconds"] = result.seconds;
  out["partial"] = result.partial();
  out["wrong_variants"] = result.wrongVariants;
  return out;
}
#endif

}  // namespace

void bindTools(py::module_ &m) {
  m.def("compile", &compile, py::arg("collective"), py::arg("ranks"), py::arg("algorithm"),
        py::arg("op") = "sum", py::arg("root") = 0, py::arg("topology") = py::none(),
        py::arg("params") = py::dict(),
        "plan-compile: the verified plan of a registered algorithm (params as plan-compile's "
        "flags, e.g. {'channels': 2})");
  m.def("bench", &bench,
        "plan-bench: runs plans over a size range and returns plan-bench --json's document "
        "(keywords as its flags: ranks=2, collective='allreduce', backend='cpu-threads', "
        "min_bytes=8, max_bytes=1<<20, plan=..., bundle=..., algorithm=..., params={...})");
#ifdef COLLPLAN_PY_TUNER
  m.def("tune", &tune, py::arg("collectives") = std::vector<std::string>{"allreduce"},
        py::arg("ranks") = 0, py::arg("backend") = "cpu-threads", py::arg("topology") = "local",
        py::arg("dtypes") = std::vector<std::string>{"f32"},
        py::arg("ops") = std::vector<std::string>{"sum"},
        py::arg("algorithms") = std::vector<std::string>{}, py::arg("min_bytes") = 8,
        py::arg("max_bytes") = uint64_t(16) << 20, py::arg("budget") = 0.0,
        py::arg("quick") = false, py::arg("output") = "", py::arg("report_dir") = "",
        "plan-tune: measures every variant and returns {'bundle': Bundle, 'tables': [...], ...}");
#endif
}

}  // namespace collplan::python
