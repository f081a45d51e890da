// readWholeFile and writeWholeFile: every failure is an error naming the file and the reason.
#include "PlanTestUtil.h"
#include "runtime/core/Files.h"
#include "runtime/plan/PlanJson.h"

#include <gtest/gtest.h>

namespace collplan {
namespace {

/// Runs `body`, expecting a FileError whose message is exactly `message`.
template <typename Body>
void expectFileError(Body &&body, const std::string &message) {
  try {
    body();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const FileError &e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(Files, RoundTripAndEveryFailureNamed) {
  const std::string path = testing::scratchPath("files-roundtrip.txt");
  writeWholeFile(path, "hello");
  EXPECT_EQ(readWholeFile(path), "hello");
  expectFileError([&] { readWholeFile(path, 4); },
                  path + ": is larger than 4 bytes, the limit for a file collplan reads");
  expectFileError([] { readWholeFile("/dev/zero", 1 << 20); },
                  "/dev/zero: is larger than 1 MiB, the limit for a file collplan reads");
  expectFileError([] { readWholeFile("/tmp"); }, "/tmp: cannot read: Is a directory");
  expectFileError([] { readWholeFile("/nonexistent/x"); },
                  "/nonexistent/x: cannot open: No such file or directory");
  expectFileError([] { writeWholeFile("/dev/full", "x"); },
                  "/dev/full: cannot write: No space left on device");
  expectFileError([] { writeWholeFile("/nonexistent/x", "x"); },
                  "/nonexistent/x: cannot write: No such file or directory");
}

TEST(Files, PlanLoaderReportsDirectoriesAndNumberOverflowClearly) {
  testing::expectPlanError([] { loadPlanFile("/tmp"); }, "", "cannot read: Is a directory");
  const std::string path = testing::scratchPath("overflow.plan.json");
  writeWholeFile(path, R"({"format": "collplan-plan", "version": 2, "ranks": 1e400})");
  testing::expectPlanError([&] { loadPlanFile(path); }, "",
                           "not valid JSON: number overflow parsing '1e400'");
}

}  // namespace
}  // namespace collplan
