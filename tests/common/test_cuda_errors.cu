// CUDA and cuFFT failures become efield::Error naming the call, the file and the line.
#include <gtest/gtest.h>

#include <string>

#include "common/cuda_check.cuh"
#include "efield/error.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"

TEST(CudaErrorsGpu, FailedCallNamesExpressionFileAndLine) {
  EFIELD_REQUIRE_GPU();
  try {
    EFIELD_CUDA_CHECK(cudaSetDevice(1 << 20));
    FAIL() << "expected efield::Error";
  } catch (const efield::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cudaSetDevice"), std::string::npos) << msg;
    EXPECT_NE(msg.find("test_cuda_errors.cu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cudaErrorInvalidDevice"), std::string::npos) << msg;
  }
  cudaGetLastError();
}

TEST(CudaErrorsGpu, FailedCufftCallThrows) {
  EFIELD_REQUIRE_GPU();
  cufftHandle plan;
  try {
    EFIELD_CUFFT_CHECK(cufftPlan1d(&plan, -5, CUFFT_R2C, 1));
    FAIL() << "expected efield::Error";
  } catch (const efield::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cufftPlan1d"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CUFFT_"), std::string::npos) << msg;
  }
}

TEST(CudaErrorsGpu, DevicePointerIsRecognised) {
  EFIELD_REQUIRE_GPU();
  efield::test::DeviceArray<float> d(16);
  EXPECT_TRUE(efield::is_device_pointer(d.get()));
}
