// One call that registers the coll dialect, every collplan pass and every named pipeline.
#pragma once

namespace mlir {
class DialectRegistry;
}

namespace collplan {

/// Adds the dialect to `registry` and registers all passes and pipelines globally (so
/// `coll-opt --coll-verify` and `plan-compile` see the same set). Safe to call twice.
void registerAll(mlir::DialectRegistry &registry);

}  // namespace collplan
