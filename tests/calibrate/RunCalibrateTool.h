// Runs the built calibrate tool as a user would, for the tool's tests.
#pragma once

#include <string>

namespace collplan::test {

struct ToolResult {
  int status = -1;     ///< exit status; -1 when it did not exit normally or could not start
  std::string output;  ///< stdout and stderr
};

/// Runs `<build>/bin/calibrate ARGS` through the shell and collects what it printed.
ToolResult runCalibrateTool(const std::string &args);

}  // namespace collplan::test
