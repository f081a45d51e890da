// evaluateArith: what each arith op of a template computes on 64-bit integers.
#include "compiler/template/TemplateArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IntegerSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;

namespace collplan {
namespace {

/// Rounded towards negative infinity (arith.floordivsi), for b != 0.
int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Rounded towards positive infinity (arith.ceildivsi), for b != 0.
int64_t ceilDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

bool compare(arith::CmpIPredicate p, int64_t a, int64_t b) {
  const uint64_t ua = uint64_t(a), ub = uint64_t(b);
  switch (p) {
  case arith::CmpIPredicate::eq: return a == b;
  case arith::CmpIPredicate::ne: return a != b;
  case arith::CmpIPredicate::slt: return a < b;
  case arith::CmpIPredicate::sle: return a <= b;
  case arith::CmpIPredicate::sgt: return a > b;
  case arith::CmpIPredicate::sge: return a >= b;
  case arith::CmpIPredicate::ult: return ua < ub;
  case arith::CmpIPredicate::ule: return ua <= ub;
  case arith::CmpIPredicate::ugt: return ua > ub;
  case arith::CmpIPredicate::uge: return ua >= ub;
  }
  return false;
}

/// The value of `expr` for dims and symbols `operands`; false (with `error`) on a division,
/// modulo or ceildiv by a divisor that is not positive (affine maps require positive ones).
bool evaluateExpr(AffineExpr expr, ArrayRef<int64_t> operands, unsigned dims, int64_t &out,
                  std::string &error) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    out = c.getValue();
    return true;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    out = operands[d.getPosition()];
    return true;
  }
  if (auto s = dyn_cast<AffineSymbolExpr>(expr)) {
    out = operands[dims + s.getPosition()];
    return true;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t a = 0, b = 0;
  if (!evaluateExpr(binary.getLHS(), operands, dims, a, error) ||
      !evaluateExpr(binary.getRHS(), operands, dims, b, error))
    return false;
  const AffineExprKind kind = expr.getKind();
  if ((kind == AffineExprKind::Mod || kind == AffineExprKind::FloorDiv ||
       kind == AffineExprKind::CeilDiv) && b <= 0) {
    error = "an affine map divides by " + std::to_string(b) + " (divisors must be positive)";
    return false;
  }
  switch (kind) {
  case AffineExprKind::Add: out = a + b; return true;
  case AffineExprKind::Mul: out = a * b; return true;
  case AffineExprKind::Mod: out = a - floorDiv(a, b) * b; return true;
  case AffineExprKind::FloorDiv: out = floorDiv(a, b); return true;
  case AffineExprKind::CeilDiv: out = ceilDiv(a, b); return true;
  default: error = "an affine expression the template cannot compute"; return false;
  }
}

bool dividesByZero(Operation &op, ArrayRef<int64_t> v) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
             arith::CeilDivUIOp, arith::FloorDivSIOp>(op) &&
         v.size() == 2 && v[1] == 0;
}

}  // namespace

std::optional<SmallVector<int64_t, 2>> evaluateAffineMap(AffineMap map, ArrayRef<int64_t> operands,
                                                         std::string &error) {
  SmallVector<int64_t, 2> results;
  for (AffineExpr expr : map.getResults()) {
    int64_t value = 0;
    if (!evaluateExpr(expr, operands, map.getNumDims(), value, error)) return std::nullopt;
    results.push_back(value);
  }
  return results;
}

std::optional<bool> evaluateIntegerSet(IntegerSet set, ArrayRef<int64_t> operands,
                                       std::string &error) {
  for (auto [expr, isEquality] : llvm::zip(set.getConstraints(), set.getEqFlags())) {
    int64_t value = 0;
    if (!evaluateExpr(expr, operands, set.getNumDims(), value, error)) return std::nullopt;
    if (isEquality ? value != 0 : value < 0) return false;
  }
  return true;
}

std::optional<int64_t> evaluateArith(Operation &op, ArrayRef<int64_t> v, std::string &error) {
  if (dividesByZero(op, v)) {
    error = "divides by zero";
    return std::nullopt;
  }
  auto u = [&](size_t i) { return uint64_t(v[i]); };
  std::optional<int64_t> result =
      llvm::TypeSwitch<Operation *, std::optional<int64_t>>(&op)
          .Case([&](arith::AddIOp) { return v[0] + v[1]; })
          .Case([&](arith::SubIOp) { return v[0] - v[1]; })
          .Case([&](arith::MulIOp) { return v[0] * v[1]; })
          .Case([&](arith::DivSIOp) { return v[0] / v[1]; })
          .Case([&](arith::DivUIOp) { return int64_t(u(0) / u(1)); })
          .Case([&](arith::RemSIOp) { return v[0] % v[1]; })
          .Case([&](arith::RemUIOp) { return int64_t(u(0) % u(1)); })
          .Case([&](arith::CeilDivSIOp) { return ceilDiv(v[0], v[1]); })
          .Case([&](arith::CeilDivUIOp) { return int64_t((u(0) + u(1) - 1) / u(1)); })
          .Case([&](arith::FloorDivSIOp) { return floorDiv(v[0], v[1]); })
          .Case([&](arith::MinSIOp) { return std::min(v[0], v[1]); })
          .Case([&](arith::MaxSIOp) { return std::max(v[0], v[1]); })
          .Case([&](arith::MinUIOp) { return int64_t(std::min(u(0), u(1))); })
          .Case([&](arith::MaxUIOp) { return int64_t(std::max(u(0), u(1))); })
          .Case([&](arith::AndIOp) { return v[0] & v[1]; })
          .Case([&](arith::OrIOp) { return v[0] | v[1]; })
          .Case([&](arith::XOrIOp) { return v[0] ^ v[1]; })
          .Case([&](arith::ShLIOp) -> std::optional<int64_t> {
            if (v[1] < 0 || v[1] > 62) return std::nullopt;
            return v[0] << v[1];
          })
          .Case([&](arith::ShRSIOp) -> std::optional<int64_t> {
            if (v[1] < 0 || v[1] > 63) return std::nullopt;
            return v[0] >> v[1];
          })
          .Case([&](arith::ShRUIOp) -> std::optional<int64_t> {
            if (v[1] < 0 || v[1] > 63) return std::nullopt;
            return int64_t(u(0) >> v[1]);
          })
          .Case([&](arith::CmpIOp c) { return int64_t(compare(c.getPredicate(), v[0], v[1])); })
          .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(
              [&](Operation *) { return v[0]; })
          .Case([&](arith::TruncIOp t) -> std::optional<int64_t> {
            const unsigned width = t.getType().getIntOrFloatBitWidth();
            return width >= 64 ? v[0] : v[0] & ((int64_t(1) << width) - 1);
          })
          .Default([&](Operation *) -> std::optional<int64_t> {
            error = "'" + op.getName().getStringRef().str() +
                    "' is not an integer op a template can compute with";
            return std::nullopt;
          });
  if (!result && error.empty()) error = "shifts by an amount outside 0..63";
  return result;
}

}  // namespace collplan
