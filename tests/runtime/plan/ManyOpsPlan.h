// A plan document whose one channel holds many ops: what loaders must read in linear time
// (JsonDocumentTest) and what the bundle-load benchmark parses.
#pragma once

#include <cstddef>
#include <string>

namespace collplan::test {

/// A broadcast plan (JSON) whose one channel holds `ops` sends on rank 0 and as many receives
/// on rank 1.
inline std::string broadcastOfManyOps(size_t ops) {
  std::string sends, recvs;
  for (size_t i = 0; i < ops; ++i) {
    sends += std::string(i ? "," : "") + R"({"op":"send","src":["in[0:1]"],"send":[1]})";
    recvs += std::string(i ? "," : "") + R"({"op":"recv","recv":0,"dst":["out[0:1]"]})";
  }
  return R"({"format":"collplan-plan","version":2,"collective":"broadcast","ranks":2,"root":0,)"
         R"("algorithm":"flat","units":1,"programs":[{"rank":0,"channels":[{"ops":[)" +
         sends + R"(]}]},{"rank":1,"channels":[{"ops":[)" + recvs + "]}]}]}";
}

}  // namespace collplan::test
