// The foundation: errors, logging, backend selection, and the GPU-skip helper.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/log.hpp"
#include "efield/efield.hpp"
#include "support/gpu.hpp"

TEST(Foundation, LogLevelByName) {
  EXPECT_NO_THROW(efield::set_log_level("debug"));
  EXPECT_TRUE(efield::detail::log().should_log(spdlog::level::debug));
  EXPECT_NO_THROW(efield::set_log_level("off"));
  EXPECT_FALSE(efield::detail::log().should_log(spdlog::level::critical));
  EXPECT_NO_THROW(efield::set_log_level("warn"));
}

TEST(Foundation, UnknownLogLevelThrowsNamingIt) {
  try {
    efield::set_log_level("loud");
    FAIL() << "expected efield::Error";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'loud'"), std::string::npos) << e.what();
  }
}

TEST(Foundation, CpuBackendAlwaysResolves) {
  EXPECT_EQ(efield::resolve_backend(efield::Backend::Cpu), efield::Backend::Cpu);
  const auto autob = efield::resolve_backend(efield::Backend::Auto);
  EXPECT_EQ(autob, efield::cuda_device_count() > 0 ? efield::Backend::Cuda : efield::Backend::Cpu);
}

TEST(Foundation, CudaBackendWithoutDeviceThrows) {
  if (efield::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_THROW(efield::resolve_backend(efield::Backend::Cuda), efield::Error);
}

TEST(Foundation, HostMemoryIsNotDeviceMemory) {
  int x = 0;
  EXPECT_FALSE(efield::is_device_pointer(&x));
  EXPECT_FALSE(efield::is_device_pointer(nullptr));
}

TEST(FoundationGpu, DeviceIsVisible) {
  EFIELD_REQUIRE_GPU();
  EXPECT_GT(efield::cuda_device_count(), 0);
  EXPECT_EQ(efield::resolve_backend(efield::Backend::Cuda), efield::Backend::Cuda);
}
