// writeWholeFile: the one way collplan writes a file, with every error checked.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace collplan {

/// "<path>: cannot write: <OS reason>"; reason() is the part after the path.
class FileWriteError : public std::runtime_error {
public:
  FileWriteError(const std::string &path, const std::string &reason)
      : std::runtime_error(path + ": " + reason), reason_(reason) {}
  const std::string &reason() const { return reason_; }

private:
  std::string reason_;
};

/// Writes `bytes` to `path` (created or truncated) and closes it, checking the open, every
/// write and the close, so a full disk or a device that refuses data (/dev/full) is an error,
/// not a silent success. Throws FileWriteError.
void writeWholeFile(const std::string &path, std::string_view bytes);

}  // namespace collplan
