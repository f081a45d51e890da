// coll-instantiate: replaces every coll.template by its coll.schedule for one rank count.
#include "compiler/Passes.h"
#include "compiler/passes/LoweringSupport.h"
#include "compiler/template/Instantiate.h"

#include "dialects/coll/CollOps.h"

namespace collplan {
#define GEN_PASS_DEF_COLLINSTANTIATE
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollInstantiatePass : collplan::impl::CollInstantiateBase<CollInstantiatePass> {
  using CollInstantiateBase::CollInstantiateBase;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    std::map<std::string, int64_t> given;
    if (auto why = collplan::parseTemplateArguments(params, given)) {
      module.emitError() << "coll-instantiate params: " << *why;
      return signalPassFailure();
    }
    std::unique_ptr<collplan::Topology> topo;
    if (!collplan::resolveTopologyOption(topology, module, topo)) return signalPassFailure();
    bool ok = true;
    for (auto tmpl : llvm::make_early_inc_range(module.getOps<mlir::coll::TemplateOp>())) {
      std::optional<collplan::CollectiveSpec> spec = specFor(tmpl);
      if (!spec) {
        ok = false;
        continue;
      }
      mlir::OpBuilder builder(tmpl);
      auto schedule = collplan::instantiateTemplate(builder, tmpl, *spec, given, topo.get(),
                                                    tmpl.getSymName());
      if (failed(schedule)) ok = false;
      else tmpl.erase();
    }
    if (!ok) signalPassFailure();
  }

  /// The collective the options ask of `tmpl`: its kind, `ranks`, `op` and `root`.
  std::optional<collplan::CollectiveSpec> specFor(mlir::coll::TemplateOp tmpl) {
    collplan::CollectiveSpec spec;
    spec.kind = collplan::CollectiveKind(tmpl.getKind());
    spec.ranks = ranks;
    spec.root = root;
    spec.chunks = spec.ranks;
    if (collplan::needsReduceOp(spec.kind)) {
      spec.op = collplan::parseReduceOp(op);
      if (!spec.op) {
        tmpl.emitError() << "coll-instantiate op '" << op << "': expected sum, prod, min or max";
        return std::nullopt;
      }
    }
    if (ranks < 1) {
      tmpl.emitError() << "coll-instantiate needs ranks=N (N >= 1) to instantiate @"
                       << tmpl.getSymName();
      return std::nullopt;
    }
    if (collplan::needsRoot(spec.kind) && (root < 0 || root >= ranks)) {
      tmpl.emitError() << "coll-instantiate root " << root.getValue() << " is not a rank of "
                       << ranks.getValue();
      return std::nullopt;
    }
    return spec;
  }
};

}  // namespace
