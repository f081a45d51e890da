// coll-to-program: (being written).
#include "compiler/Passes.h"

namespace collplan {
#define GEN_PASS_DEF_COLLTOPROGRAM
#include "compiler/Passes.h.inc"
}  // namespace collplan

namespace {

struct CollToProgramPass : collplan::impl::CollToProgramBase<CollToProgramPass> {
  void runOnOperation() override {}
};

}  // namespace
