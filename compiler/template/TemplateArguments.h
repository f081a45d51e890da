// The parameters of a coll.template for one instantiation: parsed from KEY=VALUE text and bound
// from the collective, the caller, the topology and the template's defaults.
#pragma once

#include "dialects/coll/CollOps.h"
#include "dialects/coll/CollectiveSpec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace collplan {

struct Topology;

/// The value of every parameter of a template for one instantiation, by name ("ranks" = N).
using TemplateArguments = std::map<std::string, int64_t>;

/// Parses "rows=2 cols=4" (space-separated KEY=VALUE, integer values) into `out`; returns why
/// the text is not valid, or nothing.
std::optional<std::string> parseTemplateArguments(const std::string &text,
                                                  std::map<std::string, int64_t> &out);

/// Binds every parameter of `tmpl` for `spec`: `ranks` is the rank count and `root` the root;
/// the others come from `given`, then from `topology` (`ranks-per-node`, `ranks-per-device`,
/// when uniform), then from the template's `defaults`. Returns why one has no value or a given
/// name is not a parameter, or nothing.
std::optional<std::string> bindTemplateArguments(mlir::coll::TemplateOp tmpl,
                                                 const CollectiveSpec &spec,
                                                 const std::map<std::string, int64_t> &given,
                                                 const Topology *topology,
                                                 TemplateArguments &out);

/// "ranks=8, rows=2": the arguments as errors and notes name them.
std::string describeArguments(const TemplateArguments &args);

}  // namespace collplan
