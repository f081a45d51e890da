// allocateScratch: union-find of tmp units used together, then a linear scan over program order.
#include "compiler/export/AllocateScratch.h"

#include "compiler/export/RankOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::coll;

namespace collplan {
namespace {

/// Tmp units that instructions use together, and when the rank touches them.
struct Block {
  uint32_t begin = 0, end = 0;  ///< virtual units [begin, end)
  size_t first = 0, last = 0;   ///< instructions that touch it first and last
  uint32_t physical = 0;        ///< where it goes
  /// The channels of the instructions that touch it.
  std::vector<uint32_t> channels;
};

/// The blocks of one rank: virtual units joined whenever one reference covers both.
std::vector<Block> blocksOf(const std::vector<Instruction> &ops, uint32_t units) {
  std::vector<uint32_t> parent(units);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](uint32_t u) {
    while (parent[u] != u) u = parent[u] = parent[parent[u]];
    return u;
  };
  std::vector<bool> used(units, false);
  auto forEachTmp = [&](auto &&visit) {
    for (size_t i = 0; i < ops.size(); ++i)
      for (const auto *list : {&ops[i].srcs, &ops[i].dsts})
        for (const BufRef &r : *list)
          if (r.buf == BufferKind::Tmp && r.length > 0) visit(i, r);
  };
  forEachTmp([&](size_t, const BufRef &r) {
    for (uint32_t u = r.offset; u < r.offset + r.length; ++u) {
      used[u] = true;
      parent[find(u)] = find(r.offset);
    }
  });
  std::vector<int> blockOf(units, -1);
  std::vector<Block> blocks;
  for (uint32_t u = 0; u < units; ++u) {
    if (!used[u]) continue;
    const uint32_t root = find(u);
    if (blockOf[root] < 0) {
      blockOf[root] = int(blocks.size());
      blocks.push_back(Block{u, u + 1, SIZE_MAX, 0, 0});
    }
    Block &b = blocks[size_t(blockOf[root])];
    b.begin = std::min(b.begin, u);
    b.end = std::max(b.end, u + 1);
  }
  forEachTmp([&](size_t i, const BufRef &r) {
    Block &b = blocks[size_t(blockOf[find(r.offset)])];
    b.first = std::min(b.first, i);
    b.last = std::max(b.last, i);
    if (std::find(b.channels.begin(), b.channels.end(), ops[i].channel) == b.channels.end())
      b.channels.push_back(ops[i].channel);
  });
  for (Block &b : blocks) std::sort(b.channels.begin(), b.channels.end());
  return blocks;
}

/// First fit in program order over `order` (the blocks of one region, at or after `base`): a
/// block takes the lowest units of its phase that no block still live when it is first touched
/// holds. Returns the end of the units used.
uint32_t placeRegion(std::vector<Block> &blocks, std::vector<size_t> order, uint32_t base,
                     uint32_t unitsPerBlock) {
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return blocks[a].first < blocks[b].first; });
  std::vector<size_t> live;
  uint32_t used = base;
  const uint32_t period = std::max<uint32_t>(unitsPerBlock, 1);
  for (size_t k : order) {
    Block &b = blocks[k];
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](size_t j) { return blocks[j].last < b.first; }),
               live.end());
    const uint32_t length = b.end - b.begin;
    for (uint32_t p = base + (b.begin % period + period - base % period) % period;; p += period) {
      const bool free = std::none_of(live.begin(), live.end(), [&](size_t j) {
        const Block &o = blocks[j];
        return p < o.physical + (o.end - o.begin) && o.physical < p + length;
      });
      if (!free) continue;
      b.physical = p;
      break;
    }
    live.push_back(k);
    used = std::max(used, b.physical + length);
  }
  return used;
}

/// Places every block: blocks touched on the same channels share units among themselves, in a
/// region of their own (those channels run them in program order, so a unit handed on waits
/// only for work that comes before it there anyway). A unit shared with a block of other
/// channels would need an `after` reference that makes one channel wait for another that its
/// data never waits for. Returns the units used.
uint32_t place(std::vector<Block> &blocks, uint32_t unitsPerBlock) {
  std::map<std::vector<uint32_t>, std::vector<size_t>> regions;
  for (size_t k = 0; k < blocks.size(); ++k) regions[blocks[k].channels].push_back(k);
  uint32_t used = 0;
  for (const auto &[channels, members] : regions)
    used = placeRegion(blocks, members, used, unitsPerBlock);
  return used;
}

}  // namespace

ScratchResult allocateScratch(ProgramOp program) {
  ScratchResult result;
  result.before = uint32_t(program.getScratch());
  const CollectiveSpec spec = CollectiveSpec::fromOp(program);
  const int blocks = messageBlocks(spec.kind, spec.ranks);
  const uint32_t unitsPerBlock = blocks > 0 ? uint32_t(program.getUnits()) / uint32_t(blocks) : 0;
  for (auto rankOp : program.getBody().front().getOps<RankOp>()) {
    std::vector<Instruction> ops = readRankOps(rankOp);
    std::vector<Block> tmpBlocks = blocksOf(ops, result.before);
    result.after = std::max(result.after, place(tmpBlocks, unitsPerBlock));
    std::vector<uint32_t> moveTo(result.before, 0);
    for (const Block &b : tmpBlocks)
      for (uint32_t u = b.begin; u < b.end; ++u) moveTo[u] = b.physical + (u - b.begin);
    bool changed = false;
    for (Instruction &op : ops)
      for (auto *list : {&op.srcs, &op.dsts})
        for (BufRef &r : *list)
          if (r.buf == BufferKind::Tmp && r.length > 0 && moveTo[r.offset] != r.offset) {
            r.offset = moveTo[r.offset];
            changed = true;
          }
    if (changed) writeRankOps(rankOp, ops);
  }
  program.setScratchAttr(OpBuilder(program).getI64IntegerAttr(result.after));
  return result;
}

}  // namespace collplan
