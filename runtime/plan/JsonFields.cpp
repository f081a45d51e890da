// Type and range checks for JSON members, each failing with a PlanError at the member's path.
#include "runtime/plan/JsonFields.h"

#include "runtime/core/JsonDocument.h"

#include <limits>

namespace collplan::json_access {

json parseJsonText(std::string_view text, const std::string &origin) {
  try {
    return parseJsonDocument(text, /*cbor=*/false);
  } catch (const JsonSyntaxError &e) {
    throwPlanError(origin, FieldPath(), e.what());
  }
}

std::string describeType(const json &value) {
  if (value.is_number_float()) return "a floating-point number";
  if (value.is_number_integer()) return "an integer";
  if (value.is_null()) return "null";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  return std::string("a ") + value.type_name();
}

const json &expectArray(const json &value, const Where &where) {
  if (!value.is_array()) where.fail("expected an array, got " + describeType(value));
  return value;
}

std::string expectString(const json &value, const Where &where) {
  if (!value.is_string()) where.fail("expected a string, got " + describeType(value));
  return value.get<std::string>();
}

bool expectBool(const json &value, const Where &where) {
  if (!value.is_boolean()) where.fail("expected true or false, got " + describeType(value));
  return value.get<bool>();
}

double expectNumber(const json &value, const Where &where) {
  if (!value.is_number()) where.fail("expected a number, got " + describeType(value));
  return value.get<double>();
}

int64_t expectInteger(const json &value, const Where &where, int64_t min, int64_t max) {
  if (!value.is_number_integer()) where.fail("expected an integer, got " + describeType(value));
  bool inRange;
  int64_t v = 0;
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    inRange = u <= uint64_t(std::numeric_limits<int64_t>::max()) && int64_t(u) >= min &&
              int64_t(u) <= max;
    v = inRange ? int64_t(u) : 0;
    if (!inRange)
      where.fail("must be between " + std::to_string(min) + " and " + std::to_string(max) +
                 ", got " + std::to_string(u));
  } else {
    v = value.get<int64_t>();
    if (v < min || v > max)
      where.fail("must be between " + std::to_string(min) + " and " + std::to_string(max) +
                 ", got " + std::to_string(v));
  }
  return v;
}

uint64_t expectUnsigned64(const json &value, const Where &where) {
  if (!value.is_number_integer())
    where.fail("expected a non-negative integer, got " + describeType(value));
  if (!value.is_number_unsigned() && value.get<int64_t>() < 0)
    where.fail("must be non-negative, got " + std::to_string(value.get<int64_t>()));
  return value.get<uint64_t>();
}

}  // namespace collplan::json_access
