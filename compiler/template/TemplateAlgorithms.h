// Schedule templates as algorithms: each coll.template of a file registered in the algorithm
// registry (origin: the file), so plan-compile, plan-view, plan-bench and plan-tune use it as
// they use a C++ lowering.
#pragma once

#include <string>
#include <vector>

namespace collplan {

/// Reads `path` and registers each of its coll.template ops as an algorithm named by its symbol:
/// its kind, its parameters besides `ranks` and `root` (Int; default: the template's `defaults`,
/// else the first of its `tune` values, else 0, which leaves `ranks-per-node` and
/// `ranks-per-device` to the topology), its `tune` lists as tuning axes. An instantiation that
/// fails for a collective (a failed coll.tmpl.require, a rank out of range) makes the algorithm
/// not applicable there, with the template's error as the reason. Returns the names registered
/// (those of an earlier call for the same file again). Throws std::invalid_argument naming the
/// file and the reason: it cannot be read or parsed, holds no template, or a name is taken.
std::vector<std::string> registerTemplateFile(const std::string &path);

}  // namespace collplan
