// runCalibrateTool: popen of the built calibrate binary with stderr folded into the output.
#include "RunCalibrateTool.h"

#include <array>
#include <cstdio>
#include <sys/wait.h>

namespace collplan::test {

ToolResult runCalibrateTool(const std::string &args) {
  const std::string cmd = std::string(COLLPLAN_BINARY_DIR) + "/bin/calibrate " + args + " 2>&1";
  ToolResult r;
  FILE *pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

}  // namespace collplan::test
