// Command-line parsing for the tools: CLI11's parser with the tools' exit statuses.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

namespace collplan::tools {

/// Parses `argv` into `app`. Returns the status to exit with when the tool must stop: 0 after
/// --help (and the like), 1 after a usage error, which CLI11 prints (CLI11's own statuses, 105 to
/// 115, would contradict the tools' documented 1); nothing when the tool goes on.
inline std::optional<int> parseCommandLine(CLI::App &app, int argc, char **argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    const int printed = app.exit(e);
    return printed == 0 ? 0 : 1;
  }
  return std::nullopt;
}

}  // namespace collplan::tools
