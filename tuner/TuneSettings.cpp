// TuneSettings as JSON (bundle "tuner" member, report) and the tool version.
#include "tuner/TuneSettings.h"

namespace collplan::tune {

#ifndef COLLPLAN_VERSION
#define COLLPLAN_VERSION "0.1.0"
#endif

std::string toolVersion() { return std::string("plan-tune ") + COLLPLAN_VERSION; }

nlohmann::json TuneSettings::toJson() const {
  nlohmann::json j;
  j["topology"] = topologySpec;
  j["backend"] = backend;
  nlohmann::json kinds = nlohmann::json::array(), types = nlohmann::json::array(),
                 reductions = nlohmann::json::array();
  for (CollectiveKind k : collectives) kinds.push_back(std::string(toString(k)));
  for (DType d : dtypes) types.push_back(std::string(toString(d)));
  for (ReduceOp o : ops) reductions.push_back(std::string(toString(o)));
  j["collectives"] = kinds;
  j["dtypes"] = types;
  j["ops"] = reductions;
  if (!algorithms.empty()) j["algorithms"] = algorithms;
  j["min_bytes"] = minBytes;
  j["max_bytes"] = maxBytes;
  j["size_factor"] = 2;
  j["budget_s"] = budgetSeconds;
  j["quick"] = quick;
  j["reduction_order"] = fixedReductionOrder ? "rank" : "free";
  j["prune_factor"] = pruneFactor >= kNoPruning ? 0.0 : pruneFactor;
  j["root"] = root;
  return j;
}

}  // namespace collplan::tune
