// libFuzzer target: coll IR text through MLIR's parser, the op verifiers and coll-verify.
#include "compiler/analysis/ScheduleVerifier.h"
#include "compiler/analysis/SourceNesting.h"
#include "dialects/coll/CollOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

/// The prebuilt libMLIR allocates from slabs that LLVM's headers poisoned in instrumented code,
/// which ASan would report as use-after-poison inside MLIR (see the debug preset in the README).
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }

namespace {

/// One context serves many inputs (creating it dominates a small input's cost); it is replaced
/// now and then because it interns every name and attribute it has ever parsed.
constexpr int kInputsPerContext = 1000;

std::unique_ptr<mlir::MLIRContext> newContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::coll::CollDialect>();
  auto context =
      std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  // Diagnostics are the expected outcome of bad IR: swallow them (they are still built).
  context->getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
  return context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<mlir::MLIRContext> context;
  static int inputs = 0;
  if (!context || ++inputs % kInputsPerContext == 0) context = newContext();

  // A std::string keeps the NUL after the text that MLIR's lexer expects at the end of a buffer.
  const std::string text(reinterpret_cast<const char *>(data), size);
  // The tools refuse input nested deeper than MLIR's recursive parser can take; so does this.
  if (collplan::deepNesting(text)) return 0;
  // Parsing runs the op verifiers; a module that passes them goes on to the schedule proof.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(context.get()));
  if (!module) return 0;
  module->walk([](mlir::coll::ScheduleOp schedule) { (void)collplan::verifySchedule(schedule); });
  return 0;
}
