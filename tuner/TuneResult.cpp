// TableResult: a table's variants, their notes and the counts the report prints.
#include "tuner/TuneResult.h"

#include <algorithm>

namespace collplan::tune {

TableResult::TableResult(const measure::BenchCase &c, const VariantSet &set,
                         std::vector<measure::SizePoint> sizes)
    : benchCase(c), enumerated(set.enumerated), variants(set.compiled), notes(set.notes),
      checkNotes(set.compiled.size()), choices(sizes.size()) {
  measurements.sizes = std::move(sizes);
  measurements.eligible.assign(variants.size(), true);
  measurements.byVariant.assign(variants.size(),
                                std::vector<Measurement>(measurements.sizes.size()));
  measurements.predictedUs.assign(variants.size(), {});
}

std::string TableResult::name() const { return measure::caseName(benchCase); }

int TableResult::measuredVariants() const {
  int n = 0;
  for (const auto &row : measurements.byVariant)
    n += std::any_of(row.begin(), row.end(), [](const Measurement &m) { return m.done; });
  return n;
}

int TableResult::notesCount(VariantStatus status) const {
  return int(std::count_if(notes.begin(), notes.end(),
                           [&](const VariantNote &n) { return n.status == status; }));
}

std::pair<VariantStatus, std::string> TableResult::statusOf(size_t v) const {
  const std::string &label = variants[v].variant.label;
  for (auto it = notes.rbegin(); it != notes.rend(); ++it)
    if (it->label == label) return {it->status, it->reason};
  const auto &row = measurements.byVariant[v];
  if (std::any_of(row.begin(), row.end(), [](const Measurement &m) { return m.done; }))
    return {VariantStatus::Measured, ""};
  return {VariantStatus::NotMeasured, "stopped before its turn"};
}

void TableResult::exclude(size_t v, VariantStatus status, const std::string &reason) {
  measurements.eligible[v] = false;
  notes.push_back({variants[v].variant.label, status, reason});
}

}  // namespace collplan::tune
