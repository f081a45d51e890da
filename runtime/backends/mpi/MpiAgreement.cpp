// MpiAgreement: text all-gather and the all-or-none set-up check.
#include "runtime/backends/mpi/MpiAgreement.h"

#include "runtime/backends/mpi/MpiError.h"

#include <utility>

namespace collplan::mpi {

std::vector<std::string> allGatherText(MPI_Comm comm, const std::string &mine) {
  auto context = [] { return std::string("the mpi backend exchanging the ranks' results"); };
  int ranks = 0;
  checkMpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size", context);
  std::vector<int> lengths(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  int length = int(mine.size());
  checkMpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm), "MPI_Allgather",
           context);
  int total = 0;
  for (int r = 0; r < ranks; ++r) offsets[size_t(r)] = std::exchange(total, total + lengths[size_t(r)]);
  std::string all(size_t(total), '\0');
  checkMpi(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                          offsets.data(), MPI_CHAR, comm),
           "MPI_Allgatherv", context);
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back(all.substr(size_t(offsets[size_t(r)]), size_t(lengths[size_t(r)])));
  return out;
}

void agreeOnSetUp(MPI_Comm comm, const SetUpOutcome &outcome, const std::string &what) {
  const std::string mine =
      outcome.error.empty() ? std::string() : char('A' + int(outcome.code)) + outcome.error;
  const std::vector<std::string> all = allGatherText(comm, mine);
  if (!outcome.error.empty()) throw RuntimeError(outcome.code, outcome.error);
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      throw RuntimeError(ErrorCode(all[r][0] - 'A'),
                         what + ": rank " + std::to_string(r) + " failed: " + all[r].substr(1));
}

}  // namespace collplan::mpi
