// Types, attributes and enums of the `coll` dialect.
#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Types.h"

#include "dialects/coll/CollDialect.h"
#include "dialects/coll/CollEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/coll/CollTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "dialects/coll/CollAttrs.h.inc"
