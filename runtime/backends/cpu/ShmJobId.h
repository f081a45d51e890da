// ShmJobId: unguessable cpu-shm job names and the job nonce that tells two jobs of a name apart.
#pragma once

#include <cstdint>
#include <string>

namespace collplan {

/// `bytes` random bytes from getrandom(2) (/dev/urandom where the call is missing), as lowercase
/// hex. Throws RuntimeError(System) when neither source answers.
std::string randomHex(size_t bytes);

/// A job name for a job nobody named: `prefix` and 16 random hex digits. A pid would collide
/// across PID namespaces that share /dev/shm, and another local user could predict it.
std::string defaultJobName(const std::string &prefix);

/// A fresh job nonce (64 random bits, never 0). Rank 0 writes its job's nonce into the control
/// segment and every other rank that was given one must find it there, so a second job that
/// picked the same name fails instead of sharing the first job's segments.
uint64_t newJobNonce();

/// A fresh id for one segment of a job (62 random bits, never 0): part of the segment's name,
/// so that no one who can list /dev/shm can tell the name of a job's next segment and create
/// it first.
uint64_t newSegmentId();

/// The nonce as 16 hex digits (in segment names and in COLLPLAN_SHM_NONCE).
std::string nonceText(uint64_t nonce);

/// The variable that carries a job's nonce to its ranks (set by collplan-shm-launch).
inline constexpr const char *kNonceVariable = "COLLPLAN_SHM_NONCE";

/// The nonce this process was given for `job`: COLLPLAN_SHM_NONCE when COLLPLAN_SHM_JOB names
/// `job` (another job the process opens is not the launcher's), else 0 (none). Throws
/// RuntimeError(InvalidArgument) naming the variable when it is not 16 hex digits.
uint64_t nonceFromEnvironment(const std::string &job);

}  // namespace collplan
