// Instantiation of a coll.template: its parameters bound for one rank count, its body evaluated
// into a level-2 coll.schedule (loops run, index arithmetic folded, chunk tables resolved).
#pragma once

#include "compiler/lowering/ScheduleBuilder.h"
#include "compiler/template/TemplateArguments.h"
#include "dialects/coll/CollOps.h"

#include <functional>

namespace collplan {

/// Evaluates a template's body for bound arguments. Loops run with their index values, index
/// arithmetic is computed, `tensor` tables of chunks are tracked element by element, and each
/// coll.tmpl op becomes its level-2 op through a ScheduleBuilder, with the template op's
/// location. Errors (a rank out of range, a failed coll.tmpl.require, an op a template cannot
/// hold, a loop that does not end) are reported on the template op that caused them, with the
/// arguments.
class TemplateEvaluator {
public:
  /// Makes the builder of the schedule once the chunk count is known (`coll.tmpl.chunks`, or 1
  /// at the first op that needs it).
  using BuilderFactory = std::function<ScheduleBuilder &(int chunks)>;

  TemplateEvaluator(mlir::coll::TemplateOp tmpl, TemplateArguments args);

  /// The chunks the template cuts the message into for these arguments (1 when it says
  /// nothing): evaluates the body up to its coll.tmpl.chunks.
  mlir::FailureOr<int> chunks();
  /// Evaluates the whole body, emitting through the builder `make` returns.
  mlir::LogicalResult emit(const BuilderFactory &make);

private:
  struct Run;
  mlir::coll::TemplateOp tmpl_;
  TemplateArguments args_;
};

}  // namespace collplan
