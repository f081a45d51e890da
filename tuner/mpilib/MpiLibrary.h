// MPI libraries whose own collective algorithms plan-tune measures and selects per size and rank
// count (--backend ompi-tuned, mpich), and the rules files those libraries read at start-up.
#pragma once

#include "runtime/core/Collective.h"
#include "tuner/measure/BenchCase.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace collplan::mpilib {

/// One algorithm of a library's collective, as its rules file names it.
struct LibraryAlgorithm {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string name;        ///< "ring" (Open MPI), "MPIR_Allreduce_intra_ring" (MPICH)
  int id = 0;              ///< Open MPI's algorithm number; 0 where the library uses names
  bool segmented = false;  ///< takes a segment size (Open MPI's pipelined trees and rings)
  int onlyRanks = 0;       ///< runs on this many ranks only (Open MPI's two_proc); 0: any
  bool evenRanks = false;  ///< needs an even number of ranks (Open MPI's neighbor exchange)
  /// Runs on a power-of-two number of ranks only (MPICH's recursive-doubling allgather); a rules
  /// file sends other communicator sizes to the library's unrestricted algorithm.
  bool powerOfTwoRanks = false;
  /// Needs count >= the largest power of two <= ranks, and a predefined op (MPICH's
  /// reduce_scatter_allgather); a rules file sends other calls to the unrestricted algorithm.
  bool countAtLeastPowerOfTwo = false;
};

/// What one rule selects: an algorithm and, for segmented ones, a segment size (0: the
/// algorithm's own default).
struct LibraryChoice {
  const LibraryAlgorithm *algorithm = nullptr;
  uint32_t segmentBytes = 0;
  /// "ring", "segmented_ring/32K": how reports and tables name it.
  std::string label() const;
};

/// A rule: from `fromBytes` (the library's own size measure, inclusive) up to the next rule.
struct SizeRule {
  uint64_t fromBytes = 0;
  LibraryChoice choice;
};

/// The rules of one collective on communicators of `ranks` ranks (the first starts at 0 B).
struct RankRules {
  int ranks = 0;
  std::vector<SizeRule> rules;
};

/// A collective's rules by communicator size, ascending.
struct CollectiveRules {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::vector<RankRules> byRanks;
};

/// Everything a rules file says.
using RuleSet = std::vector<CollectiveRules>;

/// A rules file format a library reads.
struct RulesFormat {
  std::string name;         ///< what --rules-format takes: "ompi-text", "ompi-json", "mpich-csel"
  std::string description;  ///< for --help and errors
};

/// One MPI library: its algorithms, how it measures a message, its rules files.
class MpiLibrary {
public:
  virtual ~MpiLibrary() = default;
  /// What --backend takes: "ompi-tuned", "mpich".
  virtual std::string_view name() const = 0;
  /// "Open MPI 4.1 coll/tuned", for reports.
  virtual std::string_view title() const = 0;
  /// The collectives it has algorithms for, in the order they are tuned.
  virtual std::vector<CollectiveKind> collectives() const = 0;
  /// Every algorithm of `kind` that runs on any communicator (the library's own list).
  virtual const std::vector<LibraryAlgorithm> &algorithms(CollectiveKind kind) const = 0;
  /// The segment sizes tried for a segmented algorithm (0 first: its own default).
  virtual std::vector<uint32_t> segmentSizes(bool quick) const = 0;
  /// The size the library's rules compare for a call of `count` elements per block of `c`.
  virtual uint64_t ruleBytes(const measure::BenchCase &c, size_t count) const = 0;
  /// The formats it reads; the first is written by default.
  virtual std::vector<RulesFormat> formats() const = 0;
  /// Writes `rules` in `format` (one of formats()). Throws std::invalid_argument on an unknown
  /// format.
  virtual void writeRules(const RuleSet &rules, const std::string &format,
                          std::ostream &out) const = 0;
  /// The environment that makes every process of a job read the rules file at `path`.
  virtual std::vector<std::string> rulesEnvironment(const std::string &path) const = 0;
  /// The launcher of this library's jobs, and the name of the sweep helper built against it.
  virtual std::string defaultMpirun() const = 0;
  virtual std::string helperName() const = 0;

  /// Every choice to measure for `kind` on `ranks` ranks: each algorithm that runs there, and
  /// segmented ones at each segment size.
  std::vector<LibraryChoice> choices(CollectiveKind kind, int ranks, bool quick) const;
  /// The algorithm of `kind` named `name`, or nullptr.
  const LibraryAlgorithm *findAlgorithm(CollectiveKind kind, std::string_view name) const;
};

/// Every library, in the order --help lists them.
const std::vector<const MpiLibrary *> &mpiLibraries();
/// The library named `name`, or nullptr.
const MpiLibrary *findMpiLibrary(std::string_view name);
/// "ompi-tuned, mpich".
std::string mpiLibraryNames();

/// The registry's entries (defined with their libraries).
const MpiLibrary &openMpiTuned();
const MpiLibrary &mpich();

}  // namespace collplan::mpilib
