// Rendering of field paths and plan error messages.
#include "runtime/plan/PlanError.h"

#include <vector>

namespace collplan {

std::string FieldPath::str() const {
  std::vector<const FieldPath *> chain;
  for (const FieldPath *p = this; p && p->parent_; p = p->parent_) chain.push_back(p);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const FieldPath &node = **it;
    if (node.key_) {
      if (!out.empty()) out += '.';
      out += node.key_;
    } else {
      out += '[' + std::to_string(node.index_) + ']';
    }
  }
  return out;
}

static std::string formatPlanError(const std::string &origin, const std::string &field,
                                   const std::string &reason) {
  std::string msg = origin.empty() ? std::string("<plan>") : origin;
  if (!field.empty()) msg += ": " + field;
  return msg + ": " + reason;
}

PlanError::PlanError(std::string origin, std::string field, std::string reason)
    : std::runtime_error(formatPlanError(origin, field, reason)), origin_(std::move(origin)),
      field_(std::move(field)), reason_(std::move(reason)) {}

void throwPlanError(const std::string &origin, const FieldPath &path, const std::string &reason) {
  throw PlanError(origin, path.str(), reason);
}

}  // namespace collplan
