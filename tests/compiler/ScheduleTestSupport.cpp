// Parsing and diagnostic capture for the compiler tests, and the cases of every algorithm.
#include "ScheduleTestSupport.h"

#include "compiler/Registration.h"
#include "compiler/export/PlanCompiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cctype>

namespace collplan::testing {

struct IRFixture::Handler {
  explicit Handler(IRFixture &f)
      : scoped(&f.context_, [&f](mlir::Diagnostic &diag) {
          f.diagnostics_.push_back(diag.str());
          return mlir::success();
        }) {}
  mlir::ScopedDiagnosticHandler scoped;
};

IRFixture::IRFixture() {
  mlir::DialectRegistry registry;
  registerAll(registry);
  context_.appendDialectRegistry(registry);
  context_.loadAllAvailableDialects();
  handler_ = std::make_unique<Handler>(*this);
}

IRFixture::~IRFixture() = default;

mlir::OwningOpRef<mlir::ModuleOp> IRFixture::parse(const std::string &text) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context_);
  EXPECT_TRUE(module) << "IR did not parse: "
                      << (diagnostics_.empty() ? "" : diagnostics_.back());
  return module;
}

mlir::coll::ScheduleOp IRFixture::firstSchedule(mlir::ModuleOp module) {
  mlir::coll::ScheduleOp found;
  module.walk([&](mlir::coll::ScheduleOp s) {
    if (!found) found = s;
  });
  return found;
}

CollectiveSpec summingSpec(CollectiveKind kind, int ranks) {
  CollectiveSpec spec;
  spec.kind = kind;
  spec.ranks = ranks;
  if (needsReduceOp(kind)) spec.op = ReduceOp::Sum;
  return spec;
}

std::string ringAllreduceText(int n) {
  std::string s = "coll.schedule @ring allreduce ranks " + std::to_string(n) + " chunks " +
                  std::to_string(n) + " op sum {\n";
  auto in = [](int r, int c) { return "%in_" + std::to_string(r) + "_" + std::to_string(c); };
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      s += "  " + in(r, c) + " = coll.input rank " + std::to_string(r) + " chunk " +
           std::to_string(c) + "\n";
  for (int c = 0; c < n; ++c) {
    int start = (c + 1) % n;
    std::string acc = in(start, c);
    for (int k = 1; k < n; ++k) {
      int r = (start + k) % n;
      std::string x = "%x_" + std::to_string(c) + "_" + std::to_string(k);
      std::string sum = "%s_" + std::to_string(c) + "_" + std::to_string(k);
      s += "  " + x + " = coll.copy " + acc + " to rank " + std::to_string(r) + "\n";
      s += "  " + sum + " = coll.reduce " + x + ", " + in(r, c) + " at rank " +
           std::to_string(r) + "\n";
      acc = sum;
    }
    s += "  coll.output " + acc + " rank " + std::to_string(c) + " chunk " + std::to_string(c) +
         "\n";
    for (int k = 1; k < n; ++k) {
      std::string y = "%y_" + std::to_string(c) + "_" + std::to_string(k);
      s += "  " + y + " = coll.copy " + acc + " to rank " + std::to_string((c + k) % n) + "\n";
      s += "  coll.output " + y + " rank " + std::to_string((c + k) % n) + " chunk " +
           std::to_string(c) + "\n";
      acc = y;
    }
  }
  return s + "}\n";
}

std::optional<std::vector<std::string>> sweepParamsFor(const AlgorithmInfo &algorithm,
                                                       CollectiveKind kind, int ranks) {
  AlgorithmParams params(algorithm);
  if (auto bad = params.assign(algorithm.example)) {
    ADD_FAILURE() << algorithm.name << ": example " << *bad;
    return std::nullopt;
  }
  CollectiveSpec spec;
  spec.kind = kind;
  spec.ranks = ranks;
  if (needsReduceOp(kind)) spec.op = ReduceOp::Sum;
  if (checkAlgorithm(spec, algorithm, params)) return std::nullopt;
  return algorithm.example;
}

AlgorithmParams paramsOf(const std::string &algorithm,
                         const std::vector<std::string> &assignments, const Topology *topology) {
  const AlgorithmInfo *info = findAlgorithm(algorithm);
  if (!info) {
    ADD_FAILURE() << "no algorithm " << algorithm;
    return AlgorithmParams();
  }
  AlgorithmParams params(*info, topology);
  if (auto bad = params.assign(assignments)) ADD_FAILURE() << algorithm << ": " << *bad;
  return params;
}

std::string paramError(const std::string &algorithm, const std::string &assignment) {
  const AlgorithmInfo *info = findAlgorithm(algorithm);
  if (!info) return "no algorithm " + algorithm;
  AlgorithmParams params(*info);
  return params.assign({assignment}).value_or("");
}

void PrintTo(const AlgorithmCase &c, std::ostream *os) {
  *os << c.algorithm->name << " " << toString(c.kind);
}

std::vector<AlgorithmCase> everyAlgorithmCase() {
  std::vector<AlgorithmCase> cases;
  for (const AlgorithmInfo &a : algorithms())
    for (CollectiveKind kind : a.kinds) cases.push_back({&a, kind});
  return cases;
}

std::string algorithmCaseName(const AlgorithmCase &c) {
  std::string name = c.algorithm->name + "_" + std::string(toString(c.kind));
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::vector<Plan> compiledPlans(const AlgorithmCase &c, int ranks) {
  std::vector<Plan> plans;
  const auto params = sweepParamsFor(*c.algorithm, c.kind, ranks);
  if (!params) return plans;
  const std::vector<int> roots = needsRoot(c.kind) ? std::vector<int>{0, ranks - 1} : std::vector<int>{0};
  for (int slices : {1, 2})
    for (int root : roots) {
      CollectiveSpec spec;
      spec.kind = c.kind;
      spec.ranks = ranks;
      spec.root = root;
      if (needsReduceOp(c.kind)) spec.op = ReduceOp::Sum;
      CompileOptions options;
      options.algorithm = c.algorithm->name;
      options.params = *params;
      options.slices = slices;
      std::string error;
      auto compiled = compileCollective(spec, options, error);
      if (mlir::failed(compiled)) {
        ADD_FAILURE() << c.algorithm->name << " " << toString(c.kind) << " N=" << ranks
                      << " slices " << slices << " root " << root << ": " << error;
        continue;
      }
      plans.push_back(std::move(compiled->plan));
    }
  return plans;
}

}  // namespace collplan::testing
