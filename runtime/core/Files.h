// Files: the one way collplan reads and writes whole files, every error checked and named.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collplan {

/// "<path>: <reason>", e.g. "x.json: cannot read: Is a directory"; reason() is the part after
/// the path, for callers that report the path in their own error type.
class FileError : public std::runtime_error {
public:
  FileError(const std::string &path, const std::string &reason)
      : std::runtime_error(path + ": " + reason), reason_(reason) {}
  const std::string &reason() const { return reason_; }

private:
  std::string reason_;
};

/// The largest document (plan, bundle, topology, report) collplan reads: 1 GiB, far above the
/// largest real one (a 64-rank bundle of 10 plans is 8 MB), so a wrong path such as /dev/zero
/// fails at once instead of exhausting memory.
constexpr uint64_t kMaxDocumentBytes = uint64_t(1) << 30;

/// The whole content of `path`. Throws FileError for a file that cannot be opened or read (a
/// directory: "cannot read: Is a directory") or that holds more than `maxBytes` bytes.
std::string readWholeFile(const std::string &path, uint64_t maxBytes = kMaxDocumentBytes);

/// Writes `bytes` to `path` (created or truncated) and closes it, checking the open, every
/// write and the close, so a full disk or a device that refuses data (/dev/full) is an error,
/// not a silent success. Throws FileError ("cannot write: <OS reason>").
void writeWholeFile(const std::string &path, std::string_view bytes);

}  // namespace collplan
