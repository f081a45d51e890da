// The calibrate tool as a user runs it: bad arguments exit non-zero with a message naming the
// problem (its real run is in RealRunTest.cpp).
#include "RunCalibrateTool.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

using namespace collplan;
using test::runCalibrateTool;
using test::ToolResult;

namespace {


/// This process's scratch folder, removed with everything in it when the tests end.
struct ScratchDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("collplan-calibrate-tool-" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::string tempDir() {
  static const ScratchDir scratch;
  return scratch.path.string();
}

}  // namespace

TEST(CalibrateTool, BadRankCount) {
  ToolResult r = runCalibrateTool("-n 1 -q -o " + tempDir() + "/x.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("calibrate: --ranks must be at least 2"), std::string::npos) << r.output;
}

TEST(CalibrateTool, UnwritableOutput) {
  ToolResult r = runCalibrateTool("-n 2 -q -o /nonexistent-dir/x.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent-dir/x.json: cannot write: folder /nonexistent-dir does "
                          "not exist"),
            std::string::npos)
      << r.output;
  r = runCalibrateTool("-n 2 -q -o " + tempDir());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("is a folder"), std::string::npos) << r.output;
  // A device that refuses the data: the close reports it, nothing claims "wrote".
  r = runCalibrateTool("-n 2 -b 8 -e 4M -f 8 -w 1 --reps 5 -q -o /dev/full");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/full: cannot write: No space left on device (the topology)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("wrote"), std::string::npos) << r.output;
}

TEST(CalibrateTool, BadSizesBackendAndFit) {
  std::string o = " -q -o " + tempDir() + "/x.json";
  ToolResult r = runCalibrateTool("-b 1M -e 8" + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("calibrate: "), std::string::npos) << r.output;
  r = runCalibrateTool("-f -1" + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--step-factor must be at least 2, got -1"), std::string::npos)
      << r.output;
  r = runCalibrateTool("-e lots" + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--max-bytes: \"lots\" is not a byte size"), std::string::npos)
      << r.output;
  r = runCalibrateTool("--backend gpu" + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown backend \"gpu\""), std::string::npos) << r.output;
  r = runCalibrateTool("--fit cubic" + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--fit: unknown value \"cubic\""), std::string::npos) << r.output;
  r = runCalibrateTool("--verify-plan /nonexistent.plan.json" + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent.plan.json"), std::string::npos) << r.output;
}
