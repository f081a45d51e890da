// coll-opt: parses, verifies, transforms and prints `coll` IR (mlir-opt with collplan inside).
#include "compiler/Registration.h"
#include "compiler/analysis/SourceNesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace {

/// The input, read with a size limit (MLIR's own reader takes /dev/zero until memory runs out)
/// and refused when its brackets nest too deeply for MLIR's recursive parser; else nullptr,
/// after printing why.
std::unique_ptr<llvm::MemoryBuffer> readInput(const std::string &path) {
  std::string text;
  try {
    text = collplan::readSourceFile(path == "-" ? "/dev/stdin" : path);
  } catch (const std::runtime_error &e) {
    llvm::errs() << "coll-opt: " << e.what() << "\n";
    return nullptr;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(text, path == "-" ? "<stdin>" : path);
}

}  // namespace

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  collplan::registerAll(registry);
  const auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "collplan optimizer driver\n", registry);
  const mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects())
    return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
  llvm::InitLLVM initLLVM(argc, argv);
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInput(input);
  if (!buffer) return 1;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "coll-opt: " << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(out->os(), std::move(buffer), registry, config))) return 1;
  out->keep();
  return 0;
}
