// coll-fuse-dup: (being written).
#include "compiler/Passes.h"

namespace collplan {
#define GEN_PASS_DEF_COLLFUSEDUP
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollFuseDupPass : collplan::impl::CollFuseDupBase<CollFuseDupPass> {
  void runOnOperation() override {}
};

}  // namespace
