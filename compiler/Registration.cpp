// Registers the coll dialect, collplan's passes and its named pass pipelines.
#include "compiler/Registration.h"

#include "compiler/Passes.h"
#include "compiler/Pipeline.h"
#include "dialects/coll/CollOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

#include <mutex>

void collplan::registerAll(mlir::DialectRegistry &registry) {
  // Templates (coll.template) compute ranks with affine maps and arith, loop with affine and
  // scf, and keep tables of chunks in tensors.
  registry.insert<mlir::coll::CollDialect, mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  static std::once_flag once;
  std::call_once(once, [] {
    registerCollplanPasses();
    registerCompilePipeline();
  });
}
