// Command-line parsing for the tools: CLI11's parser with the tools' exit statuses.
#pragma once

#include <CLI/CLI.hpp>

#include <climits>
#include <optional>
#include <string>
#include <unistd.h>

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

/// The directory of the running executable, where the helpers the tools start are built and
/// installed (collplan-mpi-baseline); "." when /proc is unavailable.
inline std::string executableDirectory() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  const std::string path(buf, size_t(n));
  return path.substr(0, path.find_last_of('/'));
}

}  // namespace collplan::tools
