// The cpu-threads registry entry: a job's ranks are threads of this process.
#include "runtime/backends/Backend.h"
#include "runtime/backends/cpu/RankPlacement.h"
#include "runtime/backends/cpu/ThreadsBackend.h"
#include "runtime/exec/RuntimeError.h"

#include <exception>
#include <thread>

namespace collplan {
namespace {

class ThreadsJob final : public Job {
public:
  explicit ThreadsJob(int ranks) : shared_(std::make_shared<ThreadsShared>(ranks)) {}

  std::unique_ptr<Transport> transport(int rank, const WaitPolicy &policy) override {
    if (rank < 0 || rank >= shared_->ranks())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "rank " + std::to_string(rank) + " is out of range for " +
                             std::to_string(shared_->ranks()) + " ranks");
    return std::make_unique<ThreadsTransport>(shared_, rank, policy);
  }

private:
  std::shared_ptr<ThreadsShared> shared_;
};

class CpuThreads final : public Backend {
public:
  std::string_view name() const override { return "cpu-threads"; }
  std::string_view summary() const override {
    return "every rank a thread of this process; peers read each other's buffers in place";
  }
  double launchOverheadUs() const override { return 300; }  // N threads started and joined
  WaitPolicy waitPolicyFor(int ranks) const override {
    return waitPolicyForRanksOfThisMachine(ranks);
  }

  std::unique_ptr<Job> openJob(const JobOptions &o) const override {
    if (o.rank != -1)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "cpu-threads worlds hold every rank: rank must be -1, got " +
                             std::to_string(o.rank));
    if (!o.job.empty())
      throw RuntimeError(ErrorCode::InvalidArgument,
                         "shm_job is only meaningful for cpu-shm; set it to NULL");
    return std::make_unique<ThreadsJob>(o.ranks);
  }

  std::vector<std::string> launch(int ranks, const RankBody &body) const override {
    ThreadsJob job(ranks);
    const RankPlacement placement;  // before the ranks bind: the CPUs this process may use
    std::vector<std::string> results(static_cast<size_t>(ranks));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        try {
          RankSession session(job.transport(r, placement.place(r, ranks)),
                              streamingCopyMinBytesFromEnv());
          results[size_t(r)] = body(session);
        } catch (...) {
          errors[size_t(r)] = std::current_exception();
        }
      });
    for (std::thread &t : threads) t.join();
    for (std::exception_ptr &e : errors)
      if (e) std::rethrow_exception(e);
    return results;
  }
};

}  // namespace

const Backend &cpuThreadsBackend() {
  static const CpuThreads backend;
  return backend;
}

}  // namespace collplan
