// The scratch file of a fuzz target and its bug verdict.
#include "ScratchFile.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace collplan::fuzz {
namespace {

std::string scratchPath;

void removeScratchFile() { std::remove(scratchPath.c_str()); }

void createScratchFile() {
  const char *dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/collplan-fuzz-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) fail("cannot create scratch file " + pattern + ": " + std::strerror(errno));
  close(fd);
  scratchPath = pattern;
  std::atexit(removeScratchFile);
}

}  // namespace

const std::string &writeScratchFile(const uint8_t *data, size_t size) {
  if (scratchPath.empty()) createScratchFile();
  std::FILE *file = std::fopen(scratchPath.c_str(), "wb");
  if (!file) fail("cannot open scratch file " + scratchPath + ": " + std::strerror(errno));
  const bool written = std::fwrite(data, 1, size, file) == size;
  if (std::fclose(file) != 0 || !written) fail("cannot write scratch file " + scratchPath);
  return scratchPath;
}

void fail(const std::string &what) {
  std::fprintf(stderr, "collplan fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace collplan::fuzz
