// The `coll` dialect class.
#pragma once

#include "mlir/IR/Dialect.h"

#include "dialects/coll/CollDialect.h.inc"
