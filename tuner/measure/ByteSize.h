// Byte sizes on the command line ("64M", "8K", "1G") and the geometric size sweeps of nccl-tests.
#pragma once

#include "runtime/core/Text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collplan::measure {

/// Parses a byte count: digits with an optional K, M or G suffix (powers of 1024, case-insensitive,
/// an optional trailing "B" or "iB"). Returns nullopt on anything else or on overflow.
std::optional<uint64_t> parseByteSize(const std::string &text);
/// parseByteSize of a command-line option's value, or std::invalid_argument "<flag>: "x" is not
/// a byte size (...)": the one error every tool gives.
uint64_t parseByteSizeOption(const std::string &flag, const std::string &text);

using collplan::formatBytes;

/// min, min*factor, min*factor^2, ... up to and including max (nccl-tests -b/-e/-f). Throws
/// std::invalid_argument naming the bad bound (min 0 or > max, factor < 2).
std::vector<uint64_t> sizeSweep(uint64_t minBytes, uint64_t maxBytes, int64_t factor);

}  // namespace collplan::measure
