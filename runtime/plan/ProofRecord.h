// ProofRecord: records, keyed by a file's SHA-256, that its whole content was validated and
// proven, so that a process holding one rank loads only its own program and still runs nothing
// unproven.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace collplan {

/// Changes whenever loading or proving a plan accepts less than before (a new check, a fixed
/// verifier bug): records written under another version are not trusted.
inline constexpr int kProofRulesVersion = 1;

/// The variable that names the directory of proof records.
inline constexpr const char *kProofDirVariable = "COLLPLAN_PROOF_DIR";

/// A directory of proof records: one file per proven content, named by the content's SHA-256
/// and kProofRulesVersion, written only after a whole load of that content passed (validation,
/// transfer matching, deadlock freedom, the proof). The directory is $COLLPLAN_PROOF_DIR, else
/// $XDG_CACHE_HOME/collplan/proofs, else $HOME/.cache/collplan/proofs, created mode 0700.
/// Records are trusted only in a directory and as files that belong to this user and that no
/// other user may write; the default directory, when it is not so (or cannot be made), is not
/// used, and every load proves the file itself.
class ProofRecords {
public:
  /// The directory the environment names. Throws RuntimeError(InvalidArgument) when
  /// COLLPLAN_PROOF_DIR is set but empty, relative, or not a directory this user owns and no
  /// one else may write.
  static ProofRecords fromEnvironment();
  /// Records in `dir` (created when missing; "" names none); unusable() says why it cannot be
  /// used.
  explicit ProofRecords(std::string dir);

  const std::string &dir() const { return dir_; }
  /// Why the directory cannot hold trusted records; "" when it can.
  const std::string &unusable() const { return unusable_; }

  /// Whether content with this SHA-256 (64 hex digits) was proven under this rules version.
  bool proven(const std::string &digest) const;

  /// Makes sure content `digest` is proven: returns at once when a record says so; else takes
  /// the record's lock (waiting up to `timeout` while another process proves the same content),
  /// looks again, and runs `prove`, which throws when the content is not sound; then writes the
  /// record. So the processes of a job that load one file prove it once between them. Without a
  /// usable directory it runs `prove` every time. Throws what `prove` throws, and
  /// RuntimeError(Timeout) when the lock is not free in time.
  void proveOnce(const std::string &digest, const std::function<void()> &prove,
                 std::chrono::milliseconds timeout) const;

private:
  std::string recordPath(const std::string &digest) const;
  void write(const std::string &digest) const;

  std::string dir_;
  std::string unusable_;
};

}  // namespace collplan
