// Verifiers of the schedule template ops (coll.template, coll.tmpl.*).
#include "dialects/coll/CollOps.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::coll;

LogicalResult mlir::coll::verifyInTemplate(Operation *op) {
  if (!op->getParentOfType<TemplateOp>())
    return op->emitOpError("is only valid inside a coll.template");
  return success();
}

/// `defaults` and `tune` name parameters of the template, with integer (list) values.
static LogicalResult verifyParamDictionary(TemplateOp op, DictionaryAttr dict, StringRef what,
                                           const llvm::StringSet<> &params, bool lists) {
  if (!dict) return success();
  for (NamedAttribute entry : dict) {
    StringRef name = entry.getName().getValue();
    if (!params.contains(name))
      return op.emitOpError() << what << " names '" << name << "', which is not a parameter";
    if (name == "ranks")
      return op.emitOpError() << what << " cannot set 'ranks': the collective gives it";
    if (!lists && !llvm::isa<IntegerAttr>(entry.getValue()))
      return op.emitOpError() << what << " '" << name << "' must be an integer";
    if (lists) {
      auto values = llvm::dyn_cast<ArrayAttr>(entry.getValue());
      if (!values || values.empty() ||
          !llvm::all_of(values, [](Attribute a) { return llvm::isa<IntegerAttr>(a); }))
        return op.emitOpError() << what << " '" << name
                                << "' must be a non-empty list of integers";
    }
  }
  return success();
}

LogicalResult TemplateOp::verify() {
  ArrayAttr params = getParams();
  if (params.empty() || llvm::cast<StringAttr>(params[0]).getValue() != "ranks")
    return emitOpError("the first parameter must be \"ranks\" (the rank count)");
  Block &body = getBodyBlock();
  if (body.getNumArguments() != params.size())
    return emitOpError() << "names " << params.size() << " parameters but its body takes "
                         << body.getNumArguments() << " arguments";
  llvm::StringSet<> names;
  for (auto [name, arg] : llvm::zip(params, body.getArguments())) {
    StringRef text = llvm::cast<StringAttr>(name).getValue();
    if (!names.insert(text).second)
      return emitOpError() << "parameter '" << text << "' is named twice";
    if (!arg.getType().isIndex())
      return emitOpError() << "parameter '" << text << "' must be an index argument";
  }
  if (failed(verifyParamDictionary(*this, getDefaultsAttr(), "defaults", names, false)) ||
      failed(verifyParamDictionary(*this, getTuneAttr(), "tune", names, true)))
    return failure();
  return success();
}

LogicalResult TmplDupOp::verify() {
  if (failed(verifyInTemplate(*this))) return failure();
  if (getRanks().size() != getResults().size())
    return emitOpError() << "writes to " << getRanks().size() << " ranks but has "
                         << getResults().size() << " results";
  if (getRanks().empty()) return emitOpError("needs at least one rank");
  return success();
}
