// Typed, path-reporting access to JSON members for the plan and bundle loaders (internal).
#pragma once

#include "runtime/plan/PlanError.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace collplan::json_access {

using nlohmann::json;

/// `text` parsed as one JSON document (runtime/core/JsonDocument.h's limits); a syntax error is a
/// PlanError naming `origin`.
json parseJsonText(std::string_view text, const std::string &origin);

/// Where a loader is in a document: the source label for messages and the current field.
struct Where {
  const std::string &origin;
  const FieldPath &path;
  [[noreturn]] void fail(const std::string &reason) const { throwPlanError(origin, path, reason); }
};

/// Checks that `value` is an object that has every `required` member and no member outside
/// `required` + `optional` (a misspelt optional field must not silently fall back to its default).
template <size_t R, size_t O>
void checkObject(const json &value, const Where &where,
                 const std::array<std::string_view, R> &required,
                 const std::array<std::string_view, O> &optional);

const json &expectArray(const json &value, const Where &where);
std::string expectString(const json &value, const Where &where);
bool expectBool(const json &value, const Where &where);
double expectNumber(const json &value, const Where &where);
/// An integer within [min, max]; floats, strings and out-of-range values are errors.
int64_t expectInteger(const json &value, const Where &where, int64_t min, int64_t max);
/// A non-negative integer up to UINT64_MAX (written as a plain JSON number).
uint64_t expectUnsigned64(const json &value, const Where &where);

/// The member `key` of an object already checked by checkObject, or nullptr when absent.
inline const json *member(const json &object, const char *key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string describeType(const json &value);

template <size_t N>
bool contains(const std::array<std::string_view, N> &names, std::string_view key) {
  for (std::string_view name : names)
    if (name == key) return true;
  return false;
}

template <size_t N>
void appendNames(std::string &out, const std::array<std::string_view, N> &names) {
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
}

template <size_t R, size_t O>
void checkObject(const json &value, const Where &where,
                 const std::array<std::string_view, R> &required,
                 const std::array<std::string_view, O> &optional) {
  if (!value.is_object()) where.fail("expected an object, got " + describeType(value));
  for (std::string_view key : required)
    if (!value.contains(key))
      throwPlanError(where.origin, where.path / key.data(), "missing required field");
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (contains(required, it.key()) || contains(optional, it.key())) continue;
    std::string allowed;
    appendNames(allowed, required);
    appendNames(allowed, optional);
    throwPlanError(where.origin, where.path / it.key().c_str(),
                   "unknown field (expected one of: " + allowed + ")");
  }
}

}  // namespace collplan::json_access
