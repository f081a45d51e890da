// The JSON member names of plan and bundle files: one list shared by the loaders, writers and the schema test.
#pragma once

#include <array>
#include <string_view>

namespace collplan::json_fields {

inline constexpr std::string_view kPlanFormatName = "collplan-plan";
inline constexpr std::string_view kBundleFormatName = "collplan-bundle";

// A plan document. "op" is required for reducing collectives, "root" for rooted ones; exactly one
// of "programs" (one per rank), "symmetric" (rank 0's, instantiated per rank) and "composed"
// (stage plans each rank builds its program from).
inline constexpr std::array<std::string_view, 6> kPlanRequired = {
    "format", "version", "collective", "ranks", "algorithm", "units"};
inline constexpr std::array<std::string_view, 10> kPlanOptional = {
    "op",        "root",     "params",    "scratch_units", "inplace_safe", "reduction_order",
    "predicted", "programs", "symmetric", "composed"};
inline constexpr std::array<std::string_view, 2> kComposedRequired = {"ranks_per_node", "stages"};
/// Every stage a composed plan may have; which it has follows from its collective
/// (Composition.h: composedStages, stageKey).
inline constexpr std::array<std::string_view, 5> kComposedStages = {
    "intra_reduce_scatter", "inter_allreduce", "inter_allgather", "inter_reduce_scatter",
    "intra_allgather"};
inline constexpr std::array<std::string_view, 3> kSymmetricRequired = {"group", "stride",
                                                                      "program"};
inline constexpr std::array<std::string_view, 1> kSymmetricOptional = {"rank_ordered_receives"};
inline constexpr std::array<std::string_view, 1> kSymmetricProgramRequired = {"channels"};
/// The one value of a plan's "reduction_order": every reduction a left fold in rank order.
inline constexpr std::string_view kRankReductionOrder = "rank";
inline constexpr std::array<std::string_view, 2> kPredictedRequired = {"alpha_rounds", "beta"};
inline constexpr std::array<std::string_view, 2> kProgramRequired = {"rank", "channels"};
inline constexpr std::array<std::string_view, 1> kChannelRequired = {"ops"};
inline constexpr std::array<std::string_view, 1> kOpRequired = {"op"};
inline constexpr std::array<std::string_view, 7> kOpOptional = {"src", "recv", "recv_pos", "dst",
                                                                "send", "after", "step"};
inline constexpr std::array<std::string_view, 2> kOpRefRequired = {"channel", "op"};

// A bundle document.
inline constexpr std::array<std::string_view, 6> kBundleRequired = {
    "format", "version", "topology_fingerprint", "backend", "ranks", "tables"};
inline constexpr std::array<std::string_view, 3> kBundleOptional = {"tool_version", "tuner",
                                                                   "topology"};
inline constexpr std::array<std::string_view, 3> kTableRequired = {"collective", "dtype",
                                                                   "buckets"};
inline constexpr std::array<std::string_view, 1> kTableOptional = {"op"};
inline constexpr std::array<std::string_view, 4> kBucketRequired = {"min_bytes", "max_bytes",
                                                                    "plan", "winner"};
inline constexpr std::array<std::string_view, 1> kBucketOptional = {"runner_up"};
inline constexpr std::array<std::string_view, 3> kCandidateRequired = {
    "algorithm", "measured_us", "predicted_us"};


// Default rules (plans/defaults.json).
inline constexpr std::string_view kDefaultsFormatName = "collplan-defaults";
inline constexpr std::array<std::string_view, 3> kDefaultsRequired = {"format", "version", "rules"};
inline constexpr std::array<std::string_view, 1> kDefaultsOptional = {"description"};
inline constexpr std::array<std::string_view, 2> kRuleRequired = {"collective", "plan"};
inline constexpr std::array<std::string_view, 5> kRuleOptional = {
    "min_bytes", "min_ranks", "min_nodes", "power_of_two_ranks", "why"};

}  // namespace collplan::json_fields
