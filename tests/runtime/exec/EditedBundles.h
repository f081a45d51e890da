// Edited bundles: sound bundles of built-in plans and the edits plan-verify refuses although
// every rank's own program still loads (what a job that loads one rank per process must catch).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace collplan::test {

/// A bundle for `ranks` ranks tuned for `backend` on topology `fingerprint`: an allreduce (f32,
/// sum) table whose one bucket is the built-in ring allreduce, and an allgather (f32) table of
/// the built-in ring allgather. Sound: plan-verify proves it.
nlohmann::json ringBundle(int ranks, const std::string &backend, const std::string &fingerprint);

/// One edit of ringBundle's plans that leaves rank 0's program valid on its own but makes the
/// plan compute something else, or not finish.
struct BundleEdit {
  std::string name;
  int minRanks = 2;      ///< the edit needs this many ranks
  std::string expected;  ///< part of the error a whole load reports
  std::function<void(nlohmann::json &bundle)> apply;
};

/// A reduction counted twice, a scratch unit read before anything wrote it, a message sent to
/// the wrong peer, two blocks swapped, a receive dropped.
const std::vector<BundleEdit> &unprovableEdits();

/// Writes `bundle` to a new file named after `tag` and this process; returns its path.
std::string writeBundle(const nlohmann::json &bundle, const std::string &tag);

}  // namespace collplan::test
