// Hash-consed reduction trees and the queries the verifier's diagnostics need.
#include "compiler/analysis/ReductionTerms.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <map>

namespace collplan {

static uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t leafKey(const Contribution &c) {
  return (uint64_t(uint32_t(c.rank)) << 40) ^ (uint64_t(uint32_t(c.chunk)) << 20) ^
         uint64_t(uint32_t(c.slice));
}

uint64_t TermTable::hashOf(const Contribution &c) { return mix(leafKey(c)); }

TermId TermTable::leaf(const Contribution &c) {
  auto [it, inserted] = leaves_.try_emplace(leafKey(c), TermId(terms_.size()));
  if (inserted) {
    Term t;
    t.leaf = c;
    t.leafHash = hashOf(c);
    t.chunkKey = int64_t(c.chunk) * slices_ + c.slice;
    terms_.push_back(t);
  }
  return it->second;
}

TermId TermTable::fold(TermId lhs, TermId rhs, mlir::Operation *origin, unsigned operandIndex) {
  auto [it, inserted] = folds_.try_emplace({lhs, rhs}, TermId(terms_.size()));
  if (inserted) {
    const Term &a = terms_[lhs], &b = terms_[rhs];
    Term t;
    t.isLeaf = false;
    t.lhs = lhs;
    t.rhs = rhs;
    t.leafCount = a.leafCount > UINT64_MAX - b.leafCount ? UINT64_MAX : a.leafCount + b.leafCount;
    t.leafHash = a.leafHash + b.leafHash;
    t.chunkKey = a.chunkKey == b.chunkKey ? a.chunkKey : -1;
    t.origin = origin;
    t.operandIndex = operandIndex;
    terms_.push_back(t);
  }
  return it->second;
}

std::vector<TermId> TermTable::reachable(TermId root) const {
  llvm::DenseSet<TermId> seen;
  std::vector<TermId> stack{root}, order;
  while (!stack.empty()) {
    TermId id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    order.push_back(id);
    if (!terms_[id].isLeaf) {
      stack.push_back(terms_[id].lhs);
      stack.push_back(terms_[id].rhs);
    }
  }
  std::sort(order.begin(), order.end());  // a fold is created after its children
  return order;
}

std::vector<std::pair<Contribution, uint64_t>> TermTable::leavesOf(TermId root) const {
  std::vector<TermId> order = reachable(root);
  llvm::DenseMap<TermId, uint64_t> multiplicity;
  multiplicity[root] = 1;
  auto addSaturating = [](uint64_t &acc, uint64_t x) {
    acc = acc > UINT64_MAX - x ? UINT64_MAX : acc + x;
  };
  std::map<Contribution, uint64_t> leaves;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // parents first
    uint64_t m = multiplicity.lookup(*it);
    const Term &t = terms_[*it];
    if (t.isLeaf) {
      addSaturating(leaves[t.leaf], m);
      continue;
    }
    addSaturating(multiplicity[t.lhs], m);
    addSaturating(multiplicity[t.rhs], m);
  }
  return {leaves.begin(), leaves.end()};
}

std::optional<TermId> TermTable::firstDoubleCount(TermId root, const Contribution &c) const {
  llvm::DenseMap<TermId, bool> contains;
  for (TermId id : reachable(root)) {  // children first
    const Term &t = terms_[id];
    if (t.isLeaf) {
      contains[id] = t.leaf == c;
      continue;
    }
    bool left = contains.lookup(t.lhs), right = contains.lookup(t.rhs);
    if (left && right) return id;
    contains[id] = left || right;
  }
  return std::nullopt;
}

}  // namespace collplan
