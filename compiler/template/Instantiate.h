// Instantiating a coll.template for one collective: the one entry point the coll-instantiate
// pass, plan-compile and plan-tune share.
#pragma once

#include "compiler/lowering/ScheduleBuilder.h"
#include "compiler/template/TemplateArguments.h"

#include "mlir/IR/Builders.h"

namespace collplan {

/// Builds the coll.schedule of `tmpl` for `requested` (its kind must be the template's; ranks,
/// op and root are the collective's, the chunk count the template's) at `builder`'s insertion
/// point, named `name`, with parameters bound from `given`, `topology` and the template's
/// defaults. The schedule records its arguments (kInstanceAttr), so the verifier's errors name
/// them. Errors are reported as diagnostics on the template op at fault.
mlir::FailureOr<mlir::coll::ScheduleOp>
instantiateTemplate(mlir::OpBuilder &builder, mlir::coll::TemplateOp tmpl,
                    const CollectiveSpec &requested, const std::map<std::string, int64_t> &given,
                    const Topology *topology, llvm::StringRef name);

/// Emits the schedule of `tmpl` for `requested` through `builder`, whose spec is
/// `requested` with the template's chunk count (templateChunks): what a template registered as
/// an algorithm builds. Errors are reported as diagnostics on the template op at fault.
mlir::LogicalResult emitTemplate(ScheduleBuilder &builder, mlir::coll::TemplateOp tmpl,
                                 const CollectiveSpec &requested,
                                 const std::map<std::string, int64_t> &given,
                                 const Topology *topology);

/// The chunk count `tmpl` declares for `requested` and `given` (1 when it declares none), or
/// failure with diagnostics as instantiateTemplate.
mlir::FailureOr<int> templateChunks(mlir::coll::TemplateOp tmpl, const CollectiveSpec &requested,
                                    const std::map<std::string, int64_t> &given,
                                    const Topology *topology);

}  // namespace collplan
