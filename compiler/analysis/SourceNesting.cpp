// SourceNesting: one pass over the text, counting brackets outside strings and comments.
#include "compiler/analysis/SourceNesting.h"

#include "runtime/core/Files.h"

#include <stdexcept>

namespace collplan {

std::optional<std::string> deepNesting(llvm::StringRef text, unsigned maxDepth) {
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') {  // a string literal: skip to its closing quote
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > maxDepth)
        return "line " + std::to_string(line) + ", column " + std::to_string(i - lineStart + 1) +
               ": brackets nest deeper than " + std::to_string(maxDepth) + " levels";
    } else if ((c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::string readSourceFile(const std::string &path) {
  std::string text = readWholeFile(path, kMaxSourceBytes);  // FileError names the file
  if (std::optional<std::string> deep = deepNesting(text))
    throw std::runtime_error(path + ": " + *deep);
  return text;
}

}  // namespace collplan
