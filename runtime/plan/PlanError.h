// PlanError: the one exception every plan/bundle loader and validator throws, with file, field and reason.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace collplan {

/// A position inside a JSON document, rendered like `tables[0].buckets[2].plan.programs[1]`.
/// Nodes live on the caller's stack and point at their parent, so descending into a field costs
/// no allocation; the text is built only when an error is reported. A node must not outlive its
/// parent: bind each level to a named variable (`FieldPath ops = program / "ops";`) rather than
/// keeping a chain of temporaries such as `(a / "b")[3]` beyond one full expression.
class FieldPath {
public:
  /// The document root (renders as the empty string).
  FieldPath() = default;
  /// A named member of `parent`.
  FieldPath(const FieldPath &parent, const char *key) : parent_(&parent), key_(key) {}
  /// An element of the array at `parent`.
  FieldPath(const FieldPath &parent, size_t index) : parent_(&parent), index_(index) {}

  FieldPath operator/(const char *key) const { return FieldPath(*this, key); }
  FieldPath operator[](size_t index) const { return FieldPath(*this, index); }

  std::string str() const;

private:
  const FieldPath *parent_ = nullptr;
  const char *key_ = nullptr;  ///< null for the root and for array elements
  size_t index_ = 0;
};

/// A plan or bundle that cannot be loaded or is invalid. `what()` is
/// "<origin>: <field>: <reason>" (or "<origin>: <reason>" for whole-document errors).
class PlanError : public std::runtime_error {
public:
  PlanError(std::string origin, std::string field, std::string reason);

  const std::string &origin() const { return origin_; }  ///< file name or other source label
  const std::string &field() const { return field_; }    ///< e.g. `programs[2].channels[0].ops[5].src[0]`
  const std::string &reason() const { return reason_; }

private:
  std::string origin_, field_, reason_;
};

/// Throws PlanError(origin, path.str(), reason).
[[noreturn]] void throwPlanError(const std::string &origin, const FieldPath &path,
                                 const std::string &reason);

}  // namespace collplan
