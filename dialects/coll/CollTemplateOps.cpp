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

//===----------------------------------------------------------------------===//
// Rank maps of the pattern ops
//===----------------------------------------------------------------------===//

ParseResult mlir::coll::parseRankMap(OpAsmParser &parser, AffineMapAttr &map,
                                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands) {
  if (parser.parseAttribute(map) ||
      parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseOperandList(operands, OpAsmParser::Delimiter::OptionalSquare))
    return failure();
  return success();
}

void mlir::coll::printRankMap(OpAsmPrinter &printer, Operation *, AffineMapAttr map,
                              OperandRange operands) {
  const unsigned dims = map.getValue().getNumDims() - 1;  // the first is the op's own index
  printer.printAttribute(map);
  printer << '(';
  printer.printOperands(operands.take_front(dims));
  printer << ')';
  if (operands.size() > dims) {
    printer << '[';
    printer.printOperands(operands.drop_front(dims));
    printer << ']';
  }
}

/// A rank map takes the op's index as its first dimension, binds the rest to `operands` and
/// gives one rank.
static LogicalResult verifyRankMap(Operation *op, StringRef what, AffineMap map,
                                   size_t operands) {
  if (map.getNumDims() < 1)
    return op->emitOpError() << what << " map needs a first dimension (the position)";
  if (map.getNumResults() != 1)
    return op->emitOpError() << what << " map must give one rank, not " << map.getNumResults();
  const size_t expected = map.getNumDims() - 1 + map.getNumSymbols();
  if (operands != expected)
    return op->emitOpError() << what << " map binds " << expected << " operands ("
                             << map.getNumDims() - 1 << " dimensions after the position, "
                             << map.getNumSymbols() << " symbols) but " << operands
                             << " are given";
  return success();
}

//===----------------------------------------------------------------------===//
// coll.tmpl.reduce_chain: `%table`, or `chunk %c ranks #map(...)[...] count %n`
//===----------------------------------------------------------------------===//

ParseResult TmplReduceChainOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type index = builder.getIndexType();
  auto &props = result.getOrAddProperties<Properties>();
  if (succeeded(parser.parseOptionalKeyword("chunk"))) {
    OpAsmParser::UnresolvedOperand chunk, count;
    SmallVector<OpAsmParser::UnresolvedOperand> rankOperands;
    AffineMapAttr map;
    if (parser.parseOperand(chunk) || parser.parseKeyword("ranks") ||
        parseRankMap(parser, map, rankOperands) || parser.parseKeyword("count") ||
        parser.parseOperand(count) || parser.parseOptionalAttrDict(result.attributes) ||
        parser.resolveOperand(chunk, index, result.operands) ||
        parser.resolveOperands(rankOperands, index, result.operands) ||
        parser.resolveOperand(count, index, result.operands))
      return failure();
    props.ranks = map;
    props.operandSegmentSizes = {0, 1, int32_t(rankOperands.size()), 1};
  } else {
    OpAsmParser::UnresolvedOperand table;
    Type tableType = RankedTensorType::get({ShapedType::kDynamic},
                                           ChunkType::get(builder.getContext()));
    if (parser.parseOperand(table) || parser.parseOptionalAttrDict(result.attributes) ||
        parser.resolveOperand(table, tableType, result.operands))
      return failure();
    props.operandSegmentSizes = {1, 0, 0, 0};
  }
  result.addTypes(ChunkType::get(builder.getContext()));
  return success();
}

void TmplReduceChainOp::print(OpAsmPrinter &printer) {
  if (getTable()) {
    printer << ' ' << getTable();
  } else {
    printer << " chunk " << getChunk() << " ranks ";
    printRankMap(printer, *this, getRanksAttr(), getRankOperands());
    printer << " count " << getCount();
  }
  printer.printOptionalAttrDict((*this)->getAttrs(),
                                {getOperandSegmentSizesAttrName(), getRanksAttrName()});
}

LogicalResult TmplReduceChainOp::verify() {
  if (failed(verifyInTemplate(*this))) return failure();
  const bool alongMap = getChunk() || getRanksAttr() || getCount();
  if (getTable()) {
    if (alongMap || !getRankOperands().empty())
      return emitOpError("takes either a table or `chunk ... ranks ... count ...`, not both");
    return success();
  }
  if (!getChunk() || !getRanksAttr() || !getCount())
    return emitOpError("needs a table, or a chunk, a rank map and a count");
  return verifyRankMap(*this, "the ranks", getRanksAttr().getValue(), getRankOperands().size());
}

LogicalResult TmplCopyChainOp::verify() {
  if (failed(verifyInTemplate(*this))) return failure();
  return verifyRankMap(*this, "the ranks", getRanks(), getRankOperands().size());
}

LogicalResult TmplExchangeOp::verify() {
  if (failed(verifyInTemplate(*this))) return failure();
  return verifyRankMap(*this, "the partner", getPartner(), getPartnerOperands().size());
}
