// Shape rules of the level-3 op kinds.
#include "runtime/plan/OpShape.h"

#include <limits>

namespace collplan {
namespace {

enum class RecvRule : uint8_t { Forbidden, Required, Either };

struct Shape {
  size_t minSrcs, maxSrcs;
  RecvRule recv;
  size_t minDsts, maxDsts;
  size_t minSends, maxSends;
  bool tokenAllowed;  ///< may carry no buffer references (a zero-length message)
};

constexpr size_t kMany = std::numeric_limits<size_t>::max();

Shape shapeOf(OpKind kind) {
  switch (kind) {
  case OpKind::Send: return {1, 1, RecvRule::Forbidden, 0, 0, 1, 1, true};
  case OpKind::Recv: return {0, 0, RecvRule::Required, 1, 1, 0, 0, true};
  case OpKind::RecvReduce: return {1, kMany, RecvRule::Required, 1, 1, 0, 0, false};
  case OpKind::RecvReduceSend: return {1, kMany, RecvRule::Required, 0, 1, 1, 1, false};
  case OpKind::RecvCopySend: return {0, 0, RecvRule::Required, 1, 1, 1, 1, true};
  case OpKind::Reduce: return {2, kMany, RecvRule::Forbidden, 1, 1, 0, 0, false};
  case OpKind::Copy: return {1, 1, RecvRule::Forbidden, 1, 1, 0, 0, false};
  case OpKind::Dup: return {0, 1, RecvRule::Either, 0, kMany, 0, kMany, true};
  }
  return {0, 0, RecvRule::Forbidden, 0, 0, 0, 0, false};
}

std::string countRule(size_t min, size_t max) {
  if (min == max) return "exactly " + std::to_string(min);
  if (max == kMany) return "at least " + std::to_string(min);
  return std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

std::string opShapeError(const PlanOp &op, const char *&field) {
  const Shape shape = shapeOf(op.kind);
  const std::string_view kindName = toString(op.kind);
  auto kind = [&] { return std::string(kindName); };  // built only for an error
  const bool token = op.srcs.empty() && op.dsts.empty();
  auto checkCount = [&](const char *name, size_t count, size_t min, size_t max) -> std::string {
    if (token && shape.tokenAllowed && count == 0) min = 0;
    if (count >= min && count <= max) return "";
    field = name;
    const std::string what = std::string(name) == "send" ? " send peer" : std::string(" ") + name + " reference";
    return kind() + " takes " + countRule(min, max) + what + (max == 1 && min == 1 ? "" : "s") +
           ", got " + std::to_string(count);
  };

  if (shape.recv == RecvRule::Required && !op.recv) {
    field = "recv";
    return kind() + " needs a recv peer";
  }
  if (shape.recv == RecvRule::Forbidden && op.recv) {
    field = "recv";
    return kind() + " does not receive; remove recv or use a recv_* op";
  }
  if (std::string e = checkCount("src", op.srcs.size(), shape.minSrcs, shape.maxSrcs); !e.empty())
    return e;
  if (std::string e = checkCount("dst", op.dsts.size(), shape.minDsts, shape.maxDsts); !e.empty())
    return e;
  if (std::string e = checkCount("send", op.sends.size(), shape.minSends, shape.maxSends);
      !e.empty())
    return e;

  if (op.kind == OpKind::Dup) {
    if (op.srcs.empty() == !op.recv) {
      field = op.recv ? "src" : "recv";
      return "dup reads exactly one value: one src or one recv, not " +
             std::string(op.recv ? "both" : "neither");
    }
    if (op.dsts.size() + op.sends.size() < 2) {
      field = "dst";
      return "dup writes its value at least twice (dst and send together), got " +
             std::to_string(op.dsts.size() + op.sends.size());
    }
  }
  if (op.recv && op.recvPos > op.srcs.size()) {
    field = "recv_pos";
    return "recv_pos " + std::to_string(op.recvPos) + " is past the " +
           std::to_string(op.srcs.size()) + " src operands (must be 0.." +
           std::to_string(op.srcs.size()) + ")";
  }
  if (!op.recv && op.recvPos != 0) {
    field = "recv_pos";
    return "recv_pos is set but " + kind() + " receives nothing";
  }
  return "";
}

}  // namespace collplan
