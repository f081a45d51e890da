// collplan_cuda.h: a world of the cuda backend says why it cannot open without a GPU; with one,
// host calls on its communicators and device calls on host worlds are refused by name.
#include "collplan_cuda.hpp"

#include "runtime/backends/cuda/CudaTarget.h"

#include <gtest/gtest.h>

#include <string>

namespace {

bool haveDevice(std::string *why) { return collplan::cuda::visibleDevices(why) > 0; }

collplan_config_t cudaConfig(int ranks) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cuda";
  config.ranks = ranks;
  return config;
}

TEST(CudaApi, WorldWithoutADeviceSaysWhy) {
  std::string why;
  if (haveDevice(&why)) GTEST_SKIP() << "a CUDA device is here: the world opens";
  const collplan_config_t config = cudaConfig(2);
  collplan_world_t world = nullptr;
  EXPECT_EQ(collplan_world_create(&config, &world), COLLPLAN_ERROR_UNSUPPORTED);
  EXPECT_EQ(std::string(collplan_last_error()),
            "collplan_world_create: the cuda backend found no usable device: " + why);
  EXPECT_EQ(world, nullptr);
}

TEST(CudaApi, GroupEndWithoutStartIsRefused) {
  EXPECT_EQ(collplan_group_end(), COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(collplan_last_error(), "collplan_group_end: no group is open (collplan_group_start)");
  EXPECT_EQ(collplan_group_start(), COLLPLAN_SUCCESS);
  EXPECT_EQ(collplan_group_end(), COLLPLAN_SUCCESS);
}

/// The C++ wrapper: a Group closes what it opened, by end() or by its destructor, so the
/// brackets stay balanced.
TEST(CudaApi, CppGroupsStayBalanced) {
  {
    collplan::Group outer;
    { collplan::Group inner; }  // nested: closed by its destructor
    outer.end();
  }
  EXPECT_EQ(collplan_group_end(), COLLPLAN_ERROR_INVALID_ARGUMENT) << "a group left open";
}

TEST(CudaApi, DeviceCallsOnAHostWorldAreRefused) {
  collplan_config_t config;
  collplan_config_init(&config);
  config.backend = "cpu-threads";
  config.ranks = 1;
  collplan_world_t world = nullptr;
  ASSERT_EQ(collplan_world_create(&config, &world), COLLPLAN_SUCCESS);
  collplan_comm_t comm = nullptr;
  ASSERT_EQ(collplan_comm_create(world, 0, &comm), COLLPLAN_SUCCESS);
  float x = 1;
  const collplan_call_t call = {COLLPLAN_ALLREDUCE, &x, 4, &x, 4, 1, COLLPLAN_F32, COLLPLAN_SUM, 0};
  EXPECT_EQ(collplan_cuda_call(comm, &call, nullptr), COLLPLAN_ERROR_UNSUPPORTED);
  EXPECT_STREQ(collplan_last_error(), "collplan_cuda_call: backend cpu-threads runs calls on the "
                                      "host: use collplan_call (collplan.h)");
  EXPECT_EQ(collplan_cuda_call(comm, nullptr, nullptr), COLLPLAN_ERROR_NULL_POINTER);
  int device = 0;
  EXPECT_EQ(collplan_cuda_comm_device(comm, &device), COLLPLAN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(collplan_cuda_call(nullptr, &call, nullptr), COLLPLAN_ERROR_NULL_POINTER);
  collplan_comm_destroy(comm);
  collplan_world_destroy(world);
}

TEST(CudaApi, HostCallsOnADeviceWorldAreRefused) {
  std::string why;
  if (!haveDevice(&why)) GTEST_SKIP() << "no CUDA device here (" << why << ")";
  const collplan_config_t config = cudaConfig(2);
  collplan_world_t world = nullptr;
  ASSERT_EQ(collplan_world_create(&config, &world), COLLPLAN_SUCCESS) << collplan_last_error();
  collplan_comm_t comm = nullptr;
  ASSERT_EQ(collplan_comm_create(world, 1, &comm), COLLPLAN_SUCCESS);
  int device = -1;
  EXPECT_EQ(collplan_cuda_comm_device(comm, &device), COLLPLAN_SUCCESS);
  EXPECT_EQ(device, 0);
  void *buffer = nullptr;
  ASSERT_EQ(collplan_mem_alloc(comm, 64, &buffer), COLLPLAN_SUCCESS);
  EXPECT_EQ(collplan_allreduce(comm, buffer, buffer, 4, COLLPLAN_F32, COLLPLAN_SUM),
            COLLPLAN_ERROR_UNSUPPORTED);
  EXPECT_STREQ(collplan_last_error(), "collplan_allreduce: backend cuda enqueues calls on device "
                                      "streams: use collplan_cuda_call (collplan_cuda.h)");
  EXPECT_EQ(collplan_mem_free(comm, buffer), COLLPLAN_SUCCESS);
  collplan_comm_destroy(comm);
  collplan_world_destroy(world);
}

}  // namespace
