// A cpu-shm segment that /dev/shm cannot hold is an error when it is made, not a SIGBUS when a
// process first touches a page tmpfs could not supply.
#include "ExecTestSupport.h"

#include <gtest/gtest.h>

#include <sys/statvfs.h>

using namespace collplan;
using namespace collplan::test;

namespace {

/// Bytes /dev/shm can still hold.
uint64_t shmSpace() {
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) != 0) return 0;
  return uint64_t(fs.f_bavail) * fs.f_frsize;
}

/// Before, the region was sized with ftruncate alone: the allocation succeeded and writing its
/// last page killed the process with SIGBUS.
TEST(ShmSpace, ABufferLargerThanDevShmIsNoSpaceError) {
  const uint64_t space = shmSpace();
  ASSERT_GT(space, 0u);
  const std::string job = uniqueJob("no-space");
  World world = World::shm(job.c_str(), 1, 0);
  Comm comm = world.comm(0);
  const size_t bytes = size_t(space + (uint64_t(1) << 30));
  void *p = nullptr;
  const collplan_status_t status = collplan_mem_alloc(comm.get(), bytes, &p);
  ASSERT_EQ(status, COLLPLAN_ERROR_SYSTEM) << "allocated " << bytes << " bytes";
  EXPECT_EQ(p, nullptr);
  const std::string message = collplan_last_error();
  EXPECT_NE(message.find("cannot reserve " + std::to_string((bytes + 4095) / 4096 * 4096) +
                         " bytes of memory for shared-memory segment /dev/shm/collplan-" + job),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
  // Nothing of the failed region stays, and the communicator still works.
  for (const std::string &name : shmLeftovers(job))
    EXPECT_EQ(name.find("-m"), std::string::npos) << name;
  std::vector<float> x(100, 1.0f);
  comm.allreduce(x.data(), x.data(), x.size(), COLLPLAN_SUM);
  EXPECT_EQ(x[99], 1.0f);
}

}  // namespace
