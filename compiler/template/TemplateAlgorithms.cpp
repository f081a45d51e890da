// registerTemplateFile: a file's coll.template ops as registry entries; each keeps its file's
// module (and MLIR context) for as long as the process runs.
#include "compiler/template/TemplateAlgorithms.h"

#include "compiler/Registration.h"
#include "compiler/analysis/SourceNesting.h"
#include "compiler/lowering/Algorithms.h"
#include "compiler/template/Instantiate.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <deque>
#include <memory>
#include <mutex>

using namespace mlir;

namespace collplan {
namespace {

/// One template file, parsed once: its ops are read (never changed) by every instantiation.
struct TemplateFile {
  std::string path;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> names;
  std::mutex mutex;  ///< one instantiation at a time: they create ops in `context`
};

std::deque<TemplateFile> &templateFiles() {
  static std::deque<TemplateFile> files;
  return files;
}

/// The first error reported in `context` while `run` runs, as "file:line:col: message".
template <typename Run>
std::string firstError(MLIRContext &context, Run &&run) {
  std::string first;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    if (first.empty() && d.getSeverity() == DiagnosticSeverity::Error) {
      std::string where;
      if (auto file = dyn_cast<FileLineColLoc>(d.getLocation()))
        where = file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
                std::to_string(file.getColumn()) + ": ";
      first = where + d.str();
    }
    return success();
  });
  run();
  return first;
}

/// The template's parameters in `params`, as bindTemplateArguments takes them: every value,
/// but ranks-per-node and ranks-per-device left at their defaults, which the topology gives.
std::map<std::string, int64_t> givenArguments(const AlgorithmInfo &algorithm,
                                              const AlgorithmParams &params) {
  std::map<std::string, int64_t> given;
  for (const ParamSpec &spec : algorithm.params) {
    const bool fromTopology = spec.name == "ranks-per-node" || spec.name == "ranks-per-device";
    if (fromTopology && params.isDefault(spec.name)) continue;
    given[spec.name] = params.getInt(spec.name);
  }
  return given;
}

/// What `tmpl` says its parameter `name` defaults to: its `defaults`, else its first `tune`
/// value, else 0 (none: the topology's, or the template's error).
int defaultOf(coll::TemplateOp tmpl, StringRef name) {
  if (DictionaryAttr defaults = tmpl.getDefaultsAttr())
    if (auto v = dyn_cast_or_null<IntegerAttr>(defaults.get(name))) return int(v.getInt());
  if (DictionaryAttr tune = tmpl.getTuneAttr())
    if (auto values = dyn_cast_or_null<ArrayAttr>(tune.get(name)))
      return int(cast<IntegerAttr>(values[0]).getInt());
  return 0;
}

std::vector<ParamSpec> paramsOf(coll::TemplateOp tmpl) {
  std::vector<ParamSpec> specs;
  for (Attribute attr : tmpl.getParams()) {
    const std::string name = cast<StringAttr>(attr).str();
    if (name == "ranks" || name == "root") continue;
    const bool fromTopology = name == "ranks-per-node" || name == "ranks-per-device";
    specs.push_back(intParam(name, defaultOf(tmpl, name), 0, kMaxRanks,
                             "template parameter" +
                                 std::string(fromTopology ? " (0: the topology's)" : ""),
                             name));
  }
  return specs;
}

std::vector<TuningAxis> tuningOf(coll::TemplateOp tmpl) {
  std::vector<TuningAxis> axes;
  if (DictionaryAttr tune = tmpl.getTuneAttr())
    for (NamedAttribute entry : tune) {
      std::vector<std::string> values;
      for (Attribute v : cast<ArrayAttr>(entry.getValue()))
        values.push_back(std::to_string(cast<IntegerAttr>(v).getInt()));
      axes.push_back(fixedAxis(entry.getName().str(), values, 1));
    }
  return axes;
}

/// The registry entry of `tmpl`, read from `file`.
AlgorithmInfo entryFor(TemplateFile &file, coll::TemplateOp tmpl) {
  AlgorithmInfo entry;
  entry.name = tmpl.getSymName().str();
  entry.summary = tmpl.getSummary() ? tmpl.getSummary()->str()
                                    : "schedule template " + entry.name;
  entry.kinds = {CollectiveKind(tmpl.getKind())};
  entry.origin = file.path;
  entry.params = paramsOf(tmpl);
  entry.tuning = tuningOf(tmpl);
  entry.check = [&file, tmpl](const CollectiveSpec &spec,
                              const AlgorithmParams &params) -> std::optional<std::string> {
    std::lock_guard<std::mutex> lock(file.mutex);
    std::string why = firstError(*file.context, [&] {
      OpBuilder builder(file.context.get());
      auto scratch = ModuleOp::create(builder.getUnknownLoc());
      builder.setInsertionPointToEnd(scratch.getBody());
      (void)instantiateTemplate(builder, tmpl, spec, givenArguments(*params.algorithm(), params),
                                params.topology, "check");
      scratch->erase();
    });
    if (why.empty()) return std::nullopt;
    return why;
  };
  entry.chunks = [&file, tmpl](const CollectiveSpec &spec, const AlgorithmParams &params) {
    std::lock_guard<std::mutex> lock(file.mutex);
    FailureOr<int> chunks = failure();
    firstError(*file.context, [&] {
      chunks = templateChunks(tmpl, spec, givenArguments(*params.algorithm(), params),
                              params.topology);
    });
    return succeeded(chunks) ? *chunks : 1;  // a failure is `check`'s to report
  };
  entry.build = [&file, tmpl](ScheduleBuilder &builder, const AlgorithmParams &params) {
    std::lock_guard<std::mutex> lock(file.mutex);
    std::string why = firstError(*file.context, [&] {
      (void)emitTemplate(builder, tmpl, builder.spec(),
                         givenArguments(*params.algorithm(), params), params.topology);
    });
    if (!why.empty()) throw AlgorithmBuildError(why);
  };
  return entry;
}

/// Parses `path` into a module of its own context; throws std::invalid_argument on failure.
void parseFile(TemplateFile &file) {
  DialectRegistry registry;
  registerAll(registry);
  file.context = std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
  file.context->appendDialectRegistry(registry);
  file.context->loadAllAvailableDialects();
  std::string text;
  try {
    text = readSourceFile(file.path);
  } catch (const std::runtime_error &e) {
    throw std::invalid_argument(e.what());
  }
  std::string why = firstError(*file.context, [&] {
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, file.path),
                               llvm::SMLoc());
    file.module = parseSourceFile<ModuleOp>(sources, file.context.get());
  });
  if (!file.module)
    throw std::invalid_argument(file.path + ": " +
                                (why.empty() ? "cannot be read or parsed" : why));
}

}  // namespace

std::vector<std::string> registerTemplateFile(const std::string &path) {
  for (const TemplateFile &file : templateFiles())
    if (file.path == path) return file.names;
  TemplateFile &file = templateFiles().emplace_back();
  file.path = path;
  try {
    parseFile(file);
    for (coll::TemplateOp tmpl : file.module->getOps<coll::TemplateOp>()) {
      if (auto why = registerAlgorithm(entryFor(file, tmpl)))
        throw std::invalid_argument(path + ": template @" + tmpl.getSymName().str() + ": " +
                                    *why);
      file.names.push_back(tmpl.getSymName().str());
    }
    if (file.names.empty())
      throw std::invalid_argument(path + ": holds no coll.template (a schedule template)");
  } catch (...) {
    if (file.names.empty()) templateFiles().pop_back();  // nothing of it was registered
    throw;
  }
  return file.names;
}

}  // namespace collplan
