// validateSettings and resolveRequest: plan-tune's inputs checked and resolved before any work.
#include "tuner/phases/Validate.h"

#include "runtime/backends/Backend.h"
#include "runtime/topology/Resolver.h"
#include "tuner/measure/ByteSize.h"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace collplan::tune {
namespace {

/// A file we are about to write must be writable: fail before hours of measuring, not after.
void checkWritableFile(const std::string &flag, const std::string &path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec))
    throw TuneError(flag + " " + path + ": is a directory, expected a file path");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw TuneError(flag + " " + path + ": cannot write: directory " + dir.string() +
                    " does not exist");
  if (fs::exists(p, ec) ? ::access(p.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0)
    throw TuneError(flag + " " + path + ": cannot write: permission denied");
}

void prepareReportDir(const std::string &dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw TuneError("--report-dir " + dir + ": cannot create the directory" +
                    (ec ? ": " + ec.message() : std::string()));
  if (::access(dir.c_str(), W_OK) != 0)
    throw TuneError("--report-dir " + dir + ": cannot write: permission denied");
}

/// The backend, the tables' names and the budget.
void checkRun(const TuneSettings &s) {
  const Backend *backend = findBackend(s.backend);
  if (!backend)
    throw TuneError("--backend: unknown backend \"" + s.backend + "\" (expected one of: " +
                    backendNames() + ")");
  if (s.collectives.empty()) throw TuneError("--collectives: nothing to tune");
  if (s.dtypes.empty()) throw TuneError("--dtypes: nothing to tune");
  if (s.ops.empty()) throw TuneError("--ops: nothing to tune");
  if (s.ranks < 0) throw TuneError("--ranks must be at least 2, got " + std::to_string(s.ranks));
  if (!(s.budgetSeconds >= 0) || std::isinf(s.budgetSeconds))  // also refuses nan
    throw TuneError("--budget must be a finite number of seconds >= 0 (0: no limit), got " +
                    (std::ostringstream() << s.budgetSeconds).str());
  if (s.budgetSeconds > 0 && backend->startedByItsLauncher())
    throw TuneError("--budget cannot be used with --backend " + s.backend +
                    ": each process would decide alone when it is spent and stop at another "
                    "variant than its peers (use --quick or fewer --algorithms to tune faster)");
}

/// The size range and the algorithms (each must implement a requested collective).
void checkSizesAndAlgorithms(const TuneSettings &s) {
  try {
    (void)measure::sizeSweep(s.minBytes, s.maxBytes, 2);
  } catch (const std::invalid_argument &e) {
    throw TuneError(e.what());
  }
  const std::vector<std::string> unknown = unknownAlgorithms(s.algorithms);
  if (!unknown.empty())
    throw TuneError("--algorithms: unknown algorithm '" + unknown.front() +
                    "' (known: " + algorithmNames() + ")");
  for (const std::string &name : s.algorithms) {
    const AlgorithmInfo *a = findAlgorithm(name);
    bool any = false;
    for (CollectiveKind k : s.collectives) any = any || a->supports(k);
    if (!any)
      throw TuneError("--algorithms: '" + name + "' implements none of the requested collectives");
  }
}

/// The topology `s` names, with its spec in `spec` (an empty one resolved: "job" or "local").
Topology resolveTopologyOf(const TuneSettings &s, std::string &spec) {
  spec = s.topologySpec;
  if (spec.empty())
    if (std::optional<Topology> job = requireBackend(s.backend).launchTopology()) {
      spec = "job";
      return std::move(*job);
    }
  if (spec.empty()) spec = "local";
  int hint = s.ranks;
  if (spec == "local" && hint == 0) hint = std::max(2, int(std::thread::hardware_concurrency()));
  try {
    return resolveTopology(spec, hint);
  } catch (const std::exception &e) {
    throw TuneError(std::string("--topology: ") + e.what());
  }
}

/// The rank count: the topology's, as --ranks says, at least 2, with the root inside.
void checkRanks(const TuneSettings &s, const std::string &spec, int ranks) {
  if (s.ranks > 0 && ranks != s.ranks)
    throw TuneError("--topology " + spec + " has " + std::to_string(ranks) +
                    " ranks but --ranks is " + std::to_string(s.ranks));
  if (ranks < 2)
    throw TuneError("--ranks: collectives need at least 2 ranks, got " + std::to_string(ranks));
  for (CollectiveKind k : s.collectives)
    if (needsRoot(k) && s.root >= ranks)
      throw TuneError("--root " + std::to_string(s.root) + " is out of range for " +
                      std::to_string(ranks) + " ranks");
}

}  // namespace

void validateSettings(const TuneSettings &s) {
  checkRun(s);
  checkSizesAndAlgorithms(s);
  for (CollectiveKind k : s.collectives)
    if (needsRoot(k) && s.root < 0) throw TuneError("--root must be >= 0");
  if (!s.outputPath.empty()) checkWritableFile("-o", s.outputPath);
  if (!s.reportDir.empty()) prepareReportDir(s.reportDir);
}

TuneResult resolveRequest(const TuneSettings &given) {
  TuneResult result;
  result.settings = given;
  if (!requireBackend(given.backend).reportsLaunches()) result.settings.quiet = true;
  result.topology = resolveTopologyOf(given, result.settings.topologySpec);
  result.ranks = result.topology.numRanks();
  checkRanks(given, result.settings.topologySpec, result.ranks);
  result.fingerprint = result.topology.fingerprint();
  return result;
}

}  // namespace collplan::tune
