// instantiateTemplate: binds a template's arguments, then evaluates it into a schedule.
#include "compiler/template/Instantiate.h"

#include "compiler/template/TemplateEvaluator.h"

#include <memory>

using namespace mlir;

namespace collplan {
namespace {

/// The arguments of `tmpl` for `requested`, or failure reported on the template.
FailureOr<TemplateArguments> argumentsFor(coll::TemplateOp tmpl, const CollectiveSpec &requested,
                                          const std::map<std::string, int64_t> &given,
                                          const Topology *topology) {
  if (CollectiveKind(tmpl.getKind()) != requested.kind)
    return tmpl.emitError() << "template @" << tmpl.getSymName() << " computes "
                            << coll::stringifyCollectiveKind(tmpl.getKind()) << ", not "
                            << toString(requested.kind);
  TemplateArguments args;
  if (auto why = bindTemplateArguments(tmpl, requested, given, topology, args))
    return tmpl.emitError() << *why;
  return args;
}

}  // namespace

FailureOr<int> templateChunks(coll::TemplateOp tmpl, const CollectiveSpec &requested,
                              const std::map<std::string, int64_t> &given,
                              const Topology *topology) {
  FailureOr<TemplateArguments> args = argumentsFor(tmpl, requested, given, topology);
  if (failed(args)) return failure();
  return TemplateEvaluator(tmpl, *args).chunks();
}

LogicalResult emitTemplate(ScheduleBuilder &builder, coll::TemplateOp tmpl,
                           const CollectiveSpec &requested,
                           const std::map<std::string, int64_t> &given, const Topology *topology) {
  FailureOr<TemplateArguments> args = argumentsFor(tmpl, requested, given, topology);
  if (failed(args)) return failure();
  bool chunksAgree = true;
  auto make = [&](int chunks) -> ScheduleBuilder & {
    chunksAgree = chunks == builder.spec().chunks || messageBlocks(requested.kind, 2) == 2;
    return builder;
  };
  if (failed(TemplateEvaluator(tmpl, *args).emit(make))) return failure();
  if (!chunksAgree)
    return tmpl.emitError() << "template @" << tmpl.getSymName()
                            << " declared another chunk count than the schedule was built for";
  return success();
}

FailureOr<coll::ScheduleOp> instantiateTemplate(OpBuilder &builder, coll::TemplateOp tmpl,
                                                const CollectiveSpec &requested,
                                                const std::map<std::string, int64_t> &given,
                                                const Topology *topology, StringRef name) {
  FailureOr<TemplateArguments> args = argumentsFor(tmpl, requested, given, topology);
  if (failed(args)) return failure();
  std::unique_ptr<ScheduleBuilder> scheduleBuilder;
  auto make = [&](int chunks) -> ScheduleBuilder & {
    CollectiveSpec spec = requested;
    spec.slices = 1;
    spec.chunks = messageBlocks(spec.kind, 2) == 2 && spec.kind != CollectiveKind::Barrier
                      ? spec.ranks
                      : chunks;
    scheduleBuilder = std::make_unique<ScheduleBuilder>(builder, tmpl.getLoc(), spec, name,
                                                        tmpl.getSymName());
    scheduleBuilder->schedule()->setAttr(coll::kInstanceAttr,
                                         builder.getStringAttr(describeArguments(*args)));
    return *scheduleBuilder;
  };
  TemplateEvaluator evaluator(tmpl, *args);
  if (failed(evaluator.emit(make))) {
    if (scheduleBuilder) scheduleBuilder->schedule()->erase();
    return failure();
  }
  return scheduleBuilder->schedule();
}

}  // namespace collplan
