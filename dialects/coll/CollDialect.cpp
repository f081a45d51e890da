// Registration of the `coll` dialect and the definitions of its types and attributes.
#include "dialects/coll/CollOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::coll;

#include "dialects/coll/CollDialect.cpp.inc"
#include "dialects/coll/CollEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "dialects/coll/CollTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialects/coll/CollAttrs.cpp.inc"

void CollDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/coll/CollOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/coll/CollTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/coll/CollAttrs.cpp.inc"
      >();
}

/// `in[4:6]`: buffer keyword, then the half-open unit range.
Attribute BufRefAttr::parse(AsmParser &parser, Type) {
  bool angled = succeeded(parser.parseOptionalLess());
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword)) return {};
  auto buffer = symbolizeBufferKind(keyword);
  if (!buffer) {
    parser.emitError(loc, "unknown buffer '") << keyword << "' (expected in, out or tmp)";
    return {};
  }
  int64_t begin = 0, end = 0;
  if (parser.parseLSquare() || parser.parseInteger(begin) || parser.parseColon() ||
      parser.parseInteger(end) || parser.parseRSquare())
    return {};
  if (angled && parser.parseGreater()) return {};
  if (begin < 0 || end < begin) {
    parser.emitError(loc, "unit range [") << begin << ":" << end << "] is empty or negative";
    return {};
  }
  return BufRefAttr::get(parser.getContext(), *buffer, begin, end - begin);
}

void BufRefAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyBufferKind(getBuffer()) << "[" << getOffset() << ":"
          << getOffset() + getLength() << "]>";
}
