// MpiAgreement: collective exchanges that let every rank of an mpi job fail together when one
// rank's set-up failed, instead of leaving the others waiting for it.
#pragma once

#include "runtime/exec/RuntimeError.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace collplan::mpi {

/// Every rank's `mine`, in rank order, on every rank of `comm`. Collective.
std::vector<std::string> allGatherText(MPI_Comm comm, const std::string &mine);

/// What one rank's set-up step ended with: empty when it succeeded.
struct SetUpOutcome {
  std::string error;
  ErrorCode code = ErrorCode::InvalidArgument;
};

/// Collective over `comm`: when any rank's `outcome` is an error, throws RuntimeError on every
/// rank, with that rank's code and "rank R: <error>" (the lowest failing rank; a rank that
/// failed gets its own message). `what` names the step for ranks that did not fail ("opening
/// the mpi communicator").
void agreeOnSetUp(MPI_Comm comm, const SetUpOutcome &outcome, const std::string &what);

}  // namespace collplan::mpi
