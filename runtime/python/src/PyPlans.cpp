// Plan and bundle bindings: load, inspect (buckets, algorithms, predicted costs), save, verify.
#include "PyPlans.h"

#include "PyConvert.h"

#include "runtime/plan/BundleJson.h"
#include "runtime/plan/PlanJson.h"
#include "runtime/plan/VerifyFile.h"

#include <pybind11/stl.h>

namespace collplan::python {
namespace {

std::optional<std::string> opName(const std::optional<ReduceOp> &op) {
  if (!op) return std::nullopt;
  return std::string(toString(*op));
}

size_t numOps(const Plan &plan) {
  size_t ops = 0;
  for (const RankProgram &p : plan.programs) ops += p.numOps();
  return ops;
}

py::dict candidate(const BucketCandidate &c) {
  py::dict d;
  d["algorithm"] = c.algorithm;
  d["measured_us"] = c.measuredUs;
  d["predicted_us"] = c.predictedUs;
  return d;
}

PlanLoadOptions loadOptions(bool verify) {
  PlanLoadOptions options;
  options.verify = verify;
  return options;
}

void bindPlan(py::module_ &m) {
  py::class_<Plan>(m, "Plan", "A compiled collective: one program per rank (format 2)")
      .def_property_readonly("collective", [](const Plan &p) { return std::string(toString(p.collective)); })
      .def_property_readonly("ranks", [](const Plan &p) { return p.ranks; })
      .def_property_readonly("op", [](const Plan &p) { return opName(p.op); })
      .def_property_readonly("root", [](const Plan &p) { return p.root; })
      .def_property_readonly("algorithm", [](const Plan &p) { return p.algorithm; })
      .def_property_readonly("params", [](const Plan &p) { return toPython(p.params); })
      .def_property_readonly("units", [](const Plan &p) { return p.units; })
      .def_property_readonly("num_ops", &numOps, "Ops over every rank's channels")
      .def_property_readonly("channels",
                             [](const Plan &p) {
                               std::vector<size_t> out;
                               for (const RankProgram &r : p.programs) out.push_back(r.channels.size());
                               return out;
                             },
                             "Channels of each rank's program")
      .def_property_readonly("predicted",
                             [](const Plan &p) {
                               py::dict d;
                               d["alpha_rounds"] = p.predicted.alphaRounds;
                               d["beta"] = p.predicted.beta;
                               return d;
                             },
                             "The compiler's α-β prediction: rounds, and bytes on the critical "
                             "path per message byte")
      .def("to_dict", [](const Plan &p) { return toPython(planToJson(p)); },
           "The plan's JSON document")
      .def("save", py::overload_cast<const Plan &, const std::string &>(&savePlanFile),
           py::arg("path"), "Writes the plan (.json, or CBOR for .cbor)")
      .def("__repr__", [](const Plan &p) {
        return "<collplan.Plan " + std::string(toString(p.collective)) + " on " +
               std::to_string(p.ranks) + " ranks, " + p.algorithm + ">";
      });
  m.def("load_plan", [](const std::string &path, bool verify) { return loadPlanFile(path, loadOptions(verify)); },
        py::arg("path"), py::arg("verify") = true,
        "Loads a plan file (JSON or CBOR), checked and, with verify, proven (collplan.PlanError)");
}

void bindBundle(py::module_ &m) {
  py::class_<Bucket>(m, "Bucket", "A size range [min_bytes, max_bytes] and the plan serving it")
      .def_readonly("min_bytes", &Bucket::minBytes)
      .def_readonly("max_bytes", &Bucket::maxBytes)
      .def_readonly("plan", &Bucket::plan)
      .def_property_readonly("algorithm", [](const Bucket &b) { return b.plan.algorithm; })
      .def_property_readonly("winner", [](const Bucket &b) { return candidate(b.winner); })
      .def_property_readonly("runner_up", [](const Bucket &b) -> py::object {
        return b.runnerUp ? py::object(candidate(*b.runnerUp)) : py::none();
      });
  py::class_<BucketTable>(m, "Table", "The buckets of one (collective, dtype, op)")
      .def_property_readonly("collective", [](const BucketTable &t) { return std::string(toString(t.collective)); })
      .def_property_readonly("dtype", [](const BucketTable &t) { return std::string(toString(t.dtype)); })
      .def_property_readonly("op", [](const BucketTable &t) { return opName(t.op); })
      .def_readonly("buckets", &BucketTable::buckets)
      .def("lookup", &BucketTable::lookup, py::arg("bytes"), py::return_value_policy::reference_internal,
           "The bucket serving a message of `bytes` bytes");
  py::class_<Bundle>(m, "Bundle", "Tuned plans by (collective, dtype, op) and size bucket")
      .def_readonly("ranks", &Bundle::ranks)
      .def_readonly("backend", &Bundle::backend)
      .def_readonly("topology_fingerprint", &Bundle::topologyFingerprint)
      .def_readonly("tool_version", &Bundle::toolVersion)
      .def_readonly("tables", &Bundle::tables)
      .def("to_dict", [](const Bundle &b) { return toPython(bundleToJson(b)); })
      .def("save", py::overload_cast<const Bundle &, const std::string &>(&saveBundleFile),
           py::arg("path"));
  m.def("load_bundle",
        [](const std::string &path, bool verify) { return loadBundleFile(path, {}, loadOptions(verify)); },
        py::arg("path"), py::arg("verify") = true,
        "Loads a bundle file (JSON or CBOR), every plan checked and, with verify, proven");
}

}  // namespace

void bindPlans(py::module_ &m) {
  bindPlan(m);
  bindBundle(m);
  m.def(
      "plan_verify",
      [](const std::string &path) {
        const FileVerification v = verifyPlanFile(path);
        py::list problems;
        for (const PlanProblem &p : v.problems) {
          py::dict d;
          d["path"] = p.path;
          d["message"] = p.message;
          problems.append(d);
        }
        py::dict out;
        out["file"] = v.file;
        out["ok"] = v.ok();
        out["plans"] = v.plans;
        out["problems"] = problems;
        return out;
      },
      py::arg("path"),
      "plan-verify on one file: {'file', 'ok', 'plans', 'problems': [{'path', 'message'}]}");
}

}  // namespace collplan::python
