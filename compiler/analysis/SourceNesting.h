// SourceNesting: how deeply brackets nest in MLIR source text, checked before MLIR parses it.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace collplan {

/// The deepest nesting of (), [], {} and <> that MLIR sources may have: far beyond any real
/// schedule (a few dozen), and shallow enough for MLIR's recursive-descent parser, which a
/// 200 000-deep attribute drove off the end of the stack.
inline constexpr unsigned kMaxSourceNesting = 512;

/// The largest MLIR source the tools read: 256 MiB (the largest real one is a few MB), so that
/// a path such as /dev/zero fails at once instead of exhausting memory.
inline constexpr uint64_t kMaxSourceBytes = uint64_t(256) << 20;

/// "line L, column C: brackets nest deeper than 512 levels" where `text` first nests deeper
/// than `maxDepth`, else nothing. String literals and `//` comments are skipped, and the `>` of
/// `->` closes nothing.
std::optional<std::string> deepNesting(llvm::StringRef text,
                                       unsigned maxDepth = kMaxSourceNesting);

/// The text of the MLIR source file `path`, read as every collplan tool reads one: at most
/// kMaxSourceBytes, and nested no deeper than kMaxSourceNesting. Throws std::runtime_error
/// naming the file and the reason (unreadable, too big, too deep).
std::string readSourceFile(const std::string &path);

}  // namespace collplan
