// main() of the MPI tests: every process of the mpirun job runs the same tests in the same
// order; rank 0 prints GoogleTest's report, the other ranks only their failures.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

/// Prints a non-zero rank's failed assertions, prefixed with its rank.
class RankFailures : public ::testing::EmptyTestEventListener {
public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult &r) override {
    if (r.failed())
      std::fprintf(stderr, "rank %d: %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

private:
  int rank_;
};

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    ::testing::TestEventListeners &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(rank));
  }
  int failed = RUN_ALL_TESTS() != 0, anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && anyFailed && !failed) std::fprintf(stderr, "another rank failed (see above)\n");
  MPI_Finalize();
  return anyFailed;
}
