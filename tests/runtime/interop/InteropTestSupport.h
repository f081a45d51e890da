// Helpers the interop tests share: test data files and messages per rank pair.
#pragma once

#include "runtime/plan/Plan.h"
#include "runtime/plan/Transfers.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace collplan::interoptest {

/// Messages from each sender to each receiver: what a round trip must keep.
inline std::map<std::pair<int, int>, int> messagesPerPair(const Plan &plan) {
  std::map<std::pair<int, int>, int> count;
  for (const PlanTransfer &t : planTransfers(plan)) ++count[{t.sender, t.receiver}];
  return count;
}

/// The whole file at `path` ("" when it cannot be read).
inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The file `name` under tests/runtime/interop/data.
inline std::string readData(const std::string &name) {
  return readFile(std::string(COLLPLAN_SOURCE_DIR) + "/tests/runtime/interop/data/" + name);
}

}  // namespace collplan::interoptest
