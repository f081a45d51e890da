// Registers the coll dialect, collplan's passes and its named pass pipelines.
#include "compiler/Registration.h"

#include "compiler/Passes.h"
#include "compiler/Pipeline.h"
#include "dialects/coll/CollOps.h"

#include "mlir/IR/DialectRegistry.h"

#include <mutex>

void collplan::registerAll(mlir::DialectRegistry &registry) {
  registry.insert<mlir::coll::CollDialect>();
  static std::once_flag once;
  std::call_once(once, [] {
    registerCollplanPasses();
    registerCompilePipeline();
  });
}
