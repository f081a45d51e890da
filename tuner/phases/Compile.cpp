// compileTables: every requested table and the compiled variants of its (collective, op).
#include "tuner/phases/Compile.h"

#include "tuner/measure/ByteSize.h"

#include <cstdio>
#include <map>

namespace collplan::tune {
namespace {

/// The spec compiled for a table (plans do not depend on the dtype).
CollectiveSpec specOf(const measure::BenchCase &c) {
  CollectiveSpec spec;
  spec.kind = c.kind;
  spec.ranks = c.ranks;
  if (needsReduceOp(c.kind)) spec.op = c.op;
  spec.root = needsRoot(c.kind) ? c.root : 0;
  return spec;
}

/// Every (collective, dtype, op) of the settings, in their order.
std::vector<measure::BenchCase> casesOf(const TuneSettings &s, int ranks) {
  std::vector<measure::BenchCase> cases;
  for (CollectiveKind kind : s.collectives)
    for (DType dtype : s.dtypes) {
      // Ops do not apply to the other collectives: one table per dtype.
      const std::vector<ReduceOp> ops = needsReduceOp(kind) ? s.ops : std::vector{ReduceOp::Sum};
      for (ReduceOp op : ops)
        cases.push_back({kind, dtype, op, needsRoot(kind) ? s.root : 0, ranks});
    }
  return cases;
}

/// "plan-tune: allreduce: 40 variants enumerated: 31 compiled, ..." and each compile failure.
void sayCompiled(CollectiveKind kind, const VariantSet &set, TuneLog &log) {
  char line[256];
  std::snprintf(line, sizeof line,
                "plan-tune: %s: %d variants enumerated: %zu compiled, %d not applicable, %d "
                "duplicate plans, %d failed to compile",
                std::string(toString(kind)).c_str(), set.enumerated, set.compiled.size(),
                set.count(VariantStatus::NotApplicable), set.count(VariantStatus::Duplicate),
                set.count(VariantStatus::CompileFailed));
  log.note(line);
  for (const VariantNote &n : set.notes)
    if (n.status == VariantStatus::CompileFailed)
      log.note("plan-tune:   compile failed: " + n.label + ": " + n.reason);
}

}  // namespace

std::vector<TableResult> compileTables(const TuneSettings &s, const Topology &topology, int ranks,
                                       TuneLog &log) {
  const std::vector<uint64_t> requested = measure::sizeSweep(s.minBytes, s.maxBytes, 2);
  std::map<std::pair<int, int>, VariantSet> compiled;  // (kind, op or -1) -> its variants
  std::vector<TableResult> tables;
  for (const measure::BenchCase &c : casesOf(s, ranks)) {
    const std::pair<int, int> key{int(c.kind), needsReduceOp(c.kind) ? int(c.op) : -1};
    if (!compiled.count(key)) {
      const CollectiveSpec spec = specOf(c);
      const std::vector<Variant> variants =
          enumerateVariants(spec, &topology, s.algorithms, s.quick);
      log.note("plan-tune: compiling " + std::to_string(variants.size()) + " variants of " +
               std::string(toString(c.kind)) + " on " + std::to_string(ranks) + " ranks...");
      ProgressBar &bar = log.bar();
      bar.start(double(variants.size()), variants.size(), "variants compiled");
      compiled[key] = compileVariants(spec, variants, [&](size_t next, size_t total) {
        if (next > 0)
          bar.advance(1.0, next < total ? "compiling " + variants[next].label : "compiled");
      });
      bar.finish();
      if (s.fixedReductionOrder) keepRankOrderPlans(compiled[key]);
    }
    tables.emplace_back(c, compiled[key], measure::sizePoints(c, requested));
  }
  for (const auto &[key, set] : compiled) sayCompiled(CollectiveKind(key.first), set, log);
  for (const TableResult &t : tables)
    if (!t.variants.empty()) return tables;
  throw TuneError("no algorithm variant compiled for the requested collectives");
}

}  // namespace collplan::tune
