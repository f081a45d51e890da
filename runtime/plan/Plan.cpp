// Op-kind names, program helpers, bucket lookup and bundle table search of the plan data model.
#include "runtime/plan/Plan.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace collplan {
namespace {

constexpr std::array<std::string_view, 8> kOpKindNames = {
    "send", "recv", "recv_reduce", "recv_reduce_send", "recv_copy_send", "reduce", "copy", "dup"};

}  // namespace

bool rangesOverlap(const BufRef &a, const BufRef &b, int64_t inShift, bool inPlace) {
  const bool shared = a.buf == b.buf || (inPlace && a.buf != BufferKind::Tmp &&
                                         b.buf != BufferKind::Tmp);
  if (!shared) return false;
  auto begin = [&](const BufRef &r) {
    return int64_t(r.offset) + (inPlace && r.buf == BufferKind::In ? inShift : 0);
  };
  return begin(a) < begin(b) + b.length && begin(b) < begin(a) + a.length;
}

std::string_view toString(OpKind kind) { return kOpKindNames[static_cast<int>(kind)]; }

std::optional<OpKind> parseOpKind(std::string_view name) {
  for (size_t i = 0; i < kOpKindNames.size(); ++i)
    if (kOpKindNames[i] == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

std::string opKindNames() {
  std::string out;
  for (size_t i = 0; i < kOpKindNames.size(); ++i) {
    if (i) out += ", ";
    out += kOpKindNames[i];
  }
  return out;
}

std::vector<PlanOp> &RankProgram::channel(size_t c) {
  if (channels.size() <= c) channels.resize(c + 1);
  return channels[c].ops;
}

size_t RankProgram::numOps() const {
  size_t n = 0;
  for (const Channel &channel : channels) n += channel.ops.size();
  return n;
}

const Bucket &BucketTable::lookup(uint64_t bytes) const {
  if (buckets.empty()) throw std::out_of_range("BucketTable::lookup: the table has no buckets");
  // The last bucket whose minBytes <= bytes. Validated tables start at 0 and are contiguous, so
  // that bucket also ends at or after `bytes`.
  auto it = std::upper_bound(buckets.begin(), buckets.end(), bytes,
                             [](uint64_t b, const Bucket &bucket) { return b < bucket.minBytes; });
  return it == buckets.begin() ? buckets.front() : *(it - 1);
}

const BucketTable *Bundle::find(CollectiveKind kind, DType dtype,
                                std::optional<ReduceOp> op) const {
  if (!needsReduceOp(kind)) op.reset();
  for (const BucketTable &table : tables)
    if (table.collective == kind && table.dtype == dtype && table.op == op) return &table;
  return nullptr;
}

}  // namespace collplan
