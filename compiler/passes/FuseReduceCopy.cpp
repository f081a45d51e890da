// coll-fuse-reduce-copy: (being written).
#include "compiler/Passes.h"

namespace collplan {
#define GEN_PASS_DEF_COLLFUSEREDUCECOPY
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollFuseReduceCopyPass : collplan::impl::CollFuseReduceCopyBase<CollFuseReduceCopyPass> {
  void runOnOperation() override {}
};

}  // namespace
