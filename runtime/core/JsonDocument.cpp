// JsonDocument: a SAX handler that builds the DOM with a depth bound and a member filter.
#include "runtime/core/JsonDocument.h"

#include "runtime/core/JsonText.h"

#include <optional>

namespace collplan {
namespace {

using nlohmann::json;

/// Builds the document as nlohmann's DOM parser does, but refuses nesting beyond `maxDepth`
/// and skips the members `keep` refuses. Unlike nlohmann's callback parser, which scans its
/// parent container after every object it discards (quadratic in a channel's op count), every
/// event costs O(1) beyond the filter.
class BoundedDomBuilder {
public:
  BoundedDomBuilder(json &root, const JsonMemberFilter &keep, int maxDepth)
      : root_(root), keep_(keep), maxDepth_(maxDepth) {}

  bool null() { return value(json()); }
  bool boolean(bool v) { return value(json(v)); }
  bool number_integer(json::number_integer_t v) { return value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(json(v)); }
  bool number_float(json::number_float_t v, const std::string &) { return value(json(v)); }
  bool string(std::string &v) { return value(json(std::move(v))); }
  bool binary(json::binary_t &v) { return value(json(std::move(v))); }
  bool start_object(size_t) { return open(json::value_t::object); }
  bool start_array(size_t) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string &k) {
    if (skipping_ > 0) return true;
    if (keep_ && !keep_(path_, k)) {
      skipNext_ = true;
      return true;
    }
    member_ = &(*stack_.back())[k];
    memberKey_ = std::move(k);
    return true;
  }

  bool parse_error(size_t, const std::string &, const nlohmann::detail::exception &e) {
    throw JsonSyntaxError(jsonErrorText(e));
  }

private:
  /// Places a scalar (or an empty container) where the next value goes; nullptr when skipped.
  json *place(json &&v) {
    if (skipNext_) {
      skipNext_ = false;
      return nullptr;
    }
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json &top = *stack_.back();
    if (top.is_array()) {
      top.get_ref<json::array_t &>().push_back(std::move(v));
      return &top.get_ref<json::array_t &>().back();
    }
    *member_ = std::move(v);
    return member_;
  }

  bool value(json &&v) {
    if (skipping_ == 0) place(std::move(v));
    return true;
  }

  bool open(json::value_t type) {
    if (++depth_ > maxDepth_)
      throw JsonSyntaxError("arrays and objects nest deeper than " + std::to_string(maxDepth_) +
                            " levels (no collplan document nests more than 20)");
    if (skipping_ > 0 || skipNext_) {
      skipNext_ = false;
      ++skipping_;
      return true;
    }
    JsonStep step;
    if (!stack_.empty() && stack_.back()->is_array()) {
      step.inArray = true;
      step.index = stack_.back()->size();
    } else if (!stack_.empty()) {
      step.key = memberKey_;
    }
    stack_.push_back(place(json(type)));
    path_.push_back(std::move(step));
    return true;
  }

  bool close() {
    --depth_;
    if (skipping_ > 0) {
      --skipping_;
      return true;
    }
    stack_.pop_back();
    path_.pop_back();
    return true;
  }

  json &root_;
  const JsonMemberFilter &keep_;
  int maxDepth_;
  int depth_ = 0;
  std::vector<json *> stack_;     ///< the containers being built, outermost first
  std::vector<JsonStep> path_;    ///< how each of them was reached
  json *member_ = nullptr;        ///< where the value of the last key goes
  std::string memberKey_;
  bool skipNext_ = false;         ///< the next value belongs to a refused member
  int skipping_ = 0;              ///< nesting inside a refused member's value
};

}  // namespace

nlohmann::json parseJsonDocument(std::string_view bytes, bool cbor, const JsonMemberFilter &keep,
                                 int maxDepth) {
  json doc;
  BoundedDomBuilder builder(doc, keep, maxDepth);
  try {
    json::sax_parse(bytes, &builder,
                    cbor ? json::input_format_t::cbor : json::input_format_t::json);
  } catch (const JsonSyntaxError &e) {
    throw JsonSyntaxError(std::string(cbor ? "not valid CBOR: " : "not valid JSON: ") + e.what());
  } catch (const json::exception &e) {
    throw JsonSyntaxError(std::string(cbor ? "not valid CBOR: " : "not valid JSON: ") +
                          jsonErrorText(e));
  }
  return doc;
}

}  // namespace collplan
