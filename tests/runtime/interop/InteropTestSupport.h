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

/// The file `name` under tests/runtime/interop/data.
inline std::string readData(const std::string &name) {
  std::ifstream in(std::string(COLLPLAN_SOURCE_DIR) + "/tests/runtime/interop/data/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace collplan::interoptest
