// UnitLayout construction: units per block and the even/uneven split of a block's elements.
#include "runtime/plan/UnitLayout.h"

#include <stdexcept>
#include <string>

namespace collplan {

UnitLayout::UnitLayout(CollectiveKind kind, int ranks, uint32_t units, size_t count, DType dtype)
    : count_(count), elementSize_(dtypeSize(dtype)) {
  if (ranks < 1) throw std::invalid_argument("UnitLayout: ranks must be at least 1");
  const int blocks = messageBlocks(kind, ranks);
  if (blocks == 0) return;  // barrier: every buffer is empty
  if (units == 0 || units % uint32_t(blocks) != 0)
    throw std::invalid_argument("UnitLayout: units " + std::to_string(units) +
                                " is not a positive multiple of the " + std::to_string(blocks) +
                                " message blocks of " + std::string(toString(kind)));
  unitsPerBlock_ = units / uint32_t(blocks);
  base_ = count / unitsPerBlock_;
  extra_ = uint32_t(count % unitsPerBlock_);
}

}  // namespace collplan
