// ProgramOrder: vector clocks over a rank's channels, built in topological order.
#include "runtime/plan/ProgramOrder.h"

#include <algorithm>

namespace collplan {
namespace {

/// Visits every op of `program` after everything it depends on (Kahn's algorithm); returns the
/// number visited, which is short of the total exactly when there is a cycle.
template <typename Visit>
size_t topologicalWalk(const RankProgram &program, const std::vector<uint32_t> &base,
                       Visit &&visit) {
  const size_t total = base.back();
  std::vector<uint32_t> pending(total, 0);
  std::vector<std::vector<uint32_t>> dependents(total);
  for (uint32_t c = 0; c < program.channels.size(); ++c)
    for (uint32_t i = 0; i < program.channels[c].ops.size(); ++i) {
      const uint32_t self = base[c] + i;
      if (i > 0) ++pending[self];
      for (const OpRef &dep : program.channels[c].ops[i].after) {
        ++pending[self];
        dependents[base[dep.channel] + dep.op].push_back(self);
      }
    }
  std::vector<uint32_t> ready;
  for (uint32_t c = 0; c < program.channels.size(); ++c)
    if (!program.channels[c].ops.empty() && pending[base[c]] == 0) ready.push_back(base[c]);
  size_t visited = 0;
  while (!ready.empty()) {
    const uint32_t op = ready.back();
    ready.pop_back();
    ++visited;
    const uint32_t channel =
        uint32_t(std::upper_bound(base.begin(), base.end(), op) - base.begin()) - 1;
    visit(OpRef{channel, op - base[channel]});
    auto release = [&](uint32_t next) {
      if (--pending[next] == 0) ready.push_back(next);
    };
    if (op + 1 < base[channel + 1]) release(op + 1);
    for (uint32_t next : dependents[op]) release(next);
  }
  return visited;
}

std::vector<uint32_t> channelBases(const RankProgram &program) {
  std::vector<uint32_t> base{0};
  for (const Channel &channel : program.channels)
    base.push_back(base.back() + uint32_t(channel.ops.size()));
  return base;
}

}  // namespace

ProgramOrder::ProgramOrder(const RankProgram &program)
    : channels_(uint32_t(program.channels.size())), base_(channelBases(program)) {
  clock_.assign(size_t(base_.back()) * channels_, 0);
  topologicalWalk(program, base_, [&](OpRef ref) {
    uint32_t *clock = &clock_[flat(ref) * channels_];
    auto merge = [&](OpRef earlier) {  // `earlier` and everything before it
      const uint32_t *other = &clock_[flat(earlier) * channels_];
      for (uint32_t c = 0; c < channels_; ++c) clock[c] = std::max(clock[c], other[c]);
      clock[earlier.channel] = std::max(clock[earlier.channel], earlier.op + 1);
    };
    if (ref.op > 0) merge(OpRef{ref.channel, ref.op - 1});
    for (const OpRef &dep : program.channels[ref.channel].ops[ref.op].after) merge(dep);
  });
}

bool ProgramOrder::before(OpRef a, OpRef b) const {
  return clock_[flat(b) * channels_ + a.channel] > a.op;
}

std::optional<OpRef> ProgramOrder::findOrderCycle(const RankProgram &program) {
  const std::vector<uint32_t> base = channelBases(program);
  std::vector<bool> seen(base.back(), false);
  const size_t visited =
      topologicalWalk(program, base, [&](OpRef ref) { seen[base[ref.channel] + ref.op] = true; });
  if (visited == base.back()) return std::nullopt;
  for (uint32_t c = 0; c < program.channels.size(); ++c)
    for (uint32_t i = 0; i < program.channels[c].ops.size(); ++i)
      if (!seen[base[c] + i]) return OpRef{c, i};
  return std::nullopt;
}

}  // namespace collplan
