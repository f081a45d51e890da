// The integer arithmetic of schedule templates: arith ops on index (and integer) values,
// computed as 64-bit signed integers.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class AffineMap;
class IntegerSet;
class Operation;
}

namespace collplan {

/// The result of arith op `op` on `operands` (64-bit; comparisons give 0 or 1), or nothing
/// with `error` saying why (division by zero, an op a template cannot compute with).
std::optional<int64_t> evaluateArith(mlir::Operation &op, llvm::ArrayRef<int64_t> operands,
                                     std::string &error);

/// The results of `map` applied to `operands` (its dims, then its symbols), or nothing with
/// `error` saying why (a division or modulo by zero or a negative divisor).
std::optional<llvm::SmallVector<int64_t, 2>> evaluateAffineMap(mlir::AffineMap map,
                                                                llvm::ArrayRef<int64_t> operands,
                                                                std::string &error);

/// Whether `operands` (dims, then symbols) satisfy every constraint of `set`, or nothing with
/// `error` saying why.
std::optional<bool> evaluateIntegerSet(mlir::IntegerSet set, llvm::ArrayRef<int64_t> operands,
                                       std::string &error);

}  // namespace collplan
