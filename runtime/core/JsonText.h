// jsonErrorText: nlohmann's parse errors as a sentence for collplan's messages.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace collplan {

/// nlohmann's message without its "[json.exception.out_of_range.406] " prefix, e.g.
/// "number overflow parsing '1e400'".
inline std::string jsonErrorText(const nlohmann::json::exception &e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0)
    if (const size_t end = text.find("] "); end != std::string::npos) text.erase(0, end + 2);
  return text;
}

}  // namespace collplan
