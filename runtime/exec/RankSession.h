// RankSession: one rank of a job: its transport, the executor over it, and every plan's program
// prepared once.
#pragma once

#include "runtime/exec/Executor.h"
#include "runtime/exec/PreparedProgram.h"
#include "runtime/exec/Transport.h"
#include "runtime/plan/Plan.h"

#include <memory>
#include <unordered_map>

namespace collplan {

/// What every backend that moves data gives a rank: prepare a plan's program for the rank once
/// (the op analysis, connections and waits of PreparedProgram), then run calls on it. The API's
/// communicators and the benchmark loop run through it alike.
class RankSession {
public:
  /// `streamingCopyMinBytes`: see Executor (streamingCopyMinBytesFromEnv() honours the user's
  /// COLLPLAN_STREAMING_COPY_MIN).
  RankSession(std::unique_ptr<Transport> transport, size_t streamingCopyMinBytes);
  RankSession(const RankSession &) = delete;
  RankSession &operator=(const RankSession &) = delete;

  int rank() const { return transport_->rank(); }
  Transport &transport() { return *transport_; }

  /// `plan`'s program for this rank, prepared on the first call for that plan object (which
  /// must outlive the session). Throws PlanError / RuntimeError when the rank cannot run it.
  const PreparedProgram &prepare(const Plan &plan);
  /// Runs one call. Throws RuntimeError on a transport failure (a peer's timeout).
  void run(const PreparedProgram &program, const CallBuffers &call) { executor_.run(program, call); }

private:
  // Destroyed bottom-up: programs (which hold the transport's connections), then the executor,
  // then the transport.
  std::unique_ptr<Transport> transport_;
  Executor executor_;
  std::unordered_map<const Plan *, std::unique_ptr<PreparedProgram>> programs_;
  /// The last plan prepared and its program: repeated calls of one shape skip the hash lookup.
  const Plan *lastPlan_ = nullptr;
  const PreparedProgram *lastProgram_ = nullptr;
};

}  // namespace collplan
