// coll-opt: parses, verifies, transforms and prints `coll` IR (mlir-opt with collplan inside).
#include "compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  collplan::registerAll(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "collplan optimizer driver\n", registry));
}
